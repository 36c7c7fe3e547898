// Administrative calls on one broker: ApiVersions/ping, topic management
// (create, delete, list, describe), consumer group administration (list,
// describe with lag, delete, offset reset), SCRAM users and ACLs.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/acl.h"
#include "spillway/common/api_versions.h"
#include "spillway/common/status.h"
#include "spillway/cluster.h"
#include "spillway/connection.h"
#include "spillway/group_description.h"
#include "spillway/topic_description.h"

namespace spillway {

struct PingReply {
  ApiVersionsResponse versions;            // the broker's version and apis
  std::chrono::nanoseconds round_trip{0};  // request sent to response read
};

// Settings of a new topic. kBrokerDefault / "" = the broker's default.
struct TopicOptions {
  // Values of the numeric settings besides a number.
  static constexpr int64_t kBrokerDefault = -2;  // the broker's setting
  static constexpr int64_t kUnlimited = -1;      // no limit (retention)

  int32_t partitions = 1;
  std::string flush_policy;                  // "durable", "interval" or "" (default)
  int64_t retention_bytes = kBrokerDefault;  // or kUnlimited
  int64_t retention_ms = kBrokerDefault;     // or kUnlimited
  int64_t segment_bytes = kBrokerDefault;
  // Replicas of each partition in a replicated cluster; -1: the cluster's
  // default. A standalone broker takes -1 or 1.
  int32_t replication_factor = -1;
};

// A SCRAM credential the broker holds (Admin::list_users).
struct UserListing {
  std::string user;
  std::string mechanism;  // "SCRAM-SHA-256" or "SCRAM-SHA-512"
  int32_t iterations = 0;
};

class Admin {
 public:
  // Connects to `address` (see Connection::connect).
  static Result<Admin> connect(std::string_view address, ConnectionOptions options = {});
  explicit Admin(Connection connection) : connection_(std::move(connection)) {}

  // The broker's version string and the api keys and versions it serves.
  Result<ApiVersionsResponse> api_versions();

  // One ApiVersions round trip, timed.
  Result<PingReply> ping();

  // Creates a topic. Errors: kTopicExists, kInvalidArgument (the message
  // names the bad setting), transport errors.
  Status create_topic(std::string_view name, const TopicOptions& options = {});
  // Deletes a topic and its data. Error: kUnknownTopic.
  Status delete_topic(std::string_view name);
  // Every topic, with its partitions' offsets, in the broker's order.
  Result<std::vector<TopicDescription>> list_topics();
  // One topic. Error: kUnknownTopic.
  Result<TopicDescription> describe_topic(std::string_view name);

  // Every consumer group the broker knows (with members or committed
  // offsets), by name.
  Result<std::vector<GroupListing>> list_groups();
  // A group's state and members, and per partition it has committed or
  // has assigned: the committed offset, the log end offset and the lag.
  // Three round trips (DescribeGroups, Metadata, FetchOffsets). Error:
  // kUnknownGroup.
  Result<GroupDescription> describe_group(std::string_view group);
  // Deletes a group without members and its committed offsets. Errors:
  // kGroupNotEmpty, kUnknownGroup.
  Status delete_group(std::string_view group);
  // Commits new offsets for every partition of `topic` for `group`, which
  // must have no members: kGroupNotEmpty names them otherwise (and the
  // broker refuses such a commit itself, should a member join meanwhile).
  // Offsets outside a partition's log are moved to its nearest end, as
  // Kafka's tool does. kTimestamp: the first offset whose record time is at
  // or after the timestamp (the log end when none is), found by reading
  // the partition from its start with a Consumer until that record: the
  // native protocol has no timestamp lookup yet, so this costs a read of
  // the records before it. Errors:
  // kGroupNotEmpty, kUnknownTopic, the commit's.
  Result<std::vector<OffsetResetResult>> reset_offsets(std::string_view group,
                                                       std::string_view topic,
                                                       const OffsetResetSpec& spec);

  // SCRAM users (docs/security-sasl.md). upsert_user derives the salt,
  // StoredKey and ServerKey here and sends only those: the password never
  // leaves this process. `mechanism` is "SCRAM-SHA-256" or "SCRAM-SHA-512";
  // `iterations` 4096 to 16384. Errors: kInvalidArgument,
  // kClusterAuthorizationFailed (needs Alter/Describe on the cluster).
  Result<std::vector<UserListing>> list_users();
  Status upsert_user(std::string_view user, std::string_view mechanism, std::string_view password,
                     int32_t iterations);
  // `mechanism` empty: every mechanism of the user.
  Status delete_user(std::string_view user, std::string_view mechanism = {});

  // The cluster as the connected broker sees it (a replicated cluster only;
  // a standalone broker answers kInvalidArgument "not a cluster"). Needs
  // Describe on the cluster.
  Result<ClusterDescription> describe_cluster();

  // Moves partitions between the brokers of a replicated cluster
  // (`spillway partition reassign`, docs/operations.md). The connected
  // broker records the moves in etcd and answers once it sees them
  // recorded; the controller then adds the new replicas, waits until they
  // are in sync, moves the leadership if it has to, and drops the old
  // ones. `throttle_bytes_per_sec` (0: none) limits what the leaders send
  // to the replicas these moves add while they catch up; asking again for
  // a move in progress changes its target and throttle. One result per
  // move, in order. Whole-call errors: kInvalidArgument (a standalone
  // broker, no moves, a negative throttle), kInvalidReplicaAssignment
  // (more than 16 replicas), kClusterAuthorizationFailed (needs Alter on
  // the cluster), transport errors.
  Result<std::vector<ReassignmentResult>> alter_partition_reassignments(
      const std::vector<PartitionReassignment>& moves, int64_t throttle_bytes_per_sec = 0);
  // The moves in progress, by topic and partition; of `topic` only when it
  // is not empty (kUnknownTopic when there is no such topic). Needs
  // Describe on the cluster.
  Result<std::vector<OngoingReassignment>> list_partition_reassignments(
      std::string_view topic = {});

  // ACLs (spillway/acl.h). Whole-call errors: kSecurityDisabled (the
  // broker's authorization is off), kClusterAuthorizationFailed (needs
  // Describe on the cluster to list, Alter to change), kInvalidArgument (a
  // malformed filter). create_acls answers one Status per rule, in order
  // (a rule already present is Ok); delete_acls one AclDeletion per filter.
  Result<std::vector<AclRule>> describe_acls(const AclRuleFilter& filter = {});
  Result<std::vector<Status>> create_acls(const std::vector<AclRule>& rules);
  Result<std::vector<AclDeletion>> delete_acls(const std::vector<AclRuleFilter>& filters);

  Connection& connection() noexcept { return connection_; }

 private:
  Connection connection_;
};

}  // namespace spillway
