// GroupCoordinator: consumer groups with members (Kafka's classic group
// protocol), for both listeners. Protocol-neutral: the Kafka handlers
// (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups, ListGroups,
// DeleteGroups, OffsetCommit) and the native ones decode their requests into
// the structs below and encode the results; Kafka's error numbers come from
// the Status codes through kafka/error_map.cc, as everywhere else.
//
// Ownership: group g lives on core owner_core(g) (a hash of the name, like
// partitions), and all of its state (members, generation, timers) is
// touched only there, so it has no lock. Every call below may be made on
// any core: it posts to the owner and posts `done` back to `reply_on`.
//
// The state machine (docs/consumer-groups.md) is Kafka's: Empty ->
// PreparingRebalance -> CompletingRebalance -> Stable, back to
// PreparingRebalance when a member joins, leaves, changes its subscription
// or misses its session timeout; Dead once deleted. A join is answered when
// every known member has rejoined or the rebalance timeout ran out (the
// first rebalance of an empty group waits `initial_rebalance_delay` more
// for others to arrive); a sync of a follower is answered when the leader
// has sent the assignment.
//
// Durability: each time a group reaches Stable or Empty its metadata
// (generation, protocol type and name, leader, members with their
// subscription and assignment, static instance ids) is written atomically
// to DATA_DIR/groups/. After a restart the group is loaded Stable with the
// same generation and members, whose session timers start afresh: members
// that come back and heartbeat carry on, the others time out and a
// rebalance follows. Committed offsets stay in the OffsetStore.
#pragma once

#include <asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::broker {

class CoreSet;
class OffsetStore;

namespace groups {

// Limits checked before anything is stored (bad input costs nothing).
struct GroupLimits {
  std::chrono::milliseconds min_session_timeout{6'000};      // Kafka's group.min.session.timeout.ms
  std::chrono::milliseconds max_session_timeout{300'000};    // group.max.session.timeout.ms
  std::chrono::milliseconds initial_rebalance_delay{3'000};  // group.initial.rebalance.delay.ms
  size_t max_group_size = 1'000;                             // members per group (group.max.size)
  size_t max_groups = 10'000;                                // groups with members, broker-wide
  size_t max_protocols = 64;                                 // assignors offered in one join
  size_t max_metadata_bytes = 1 << 20;                       // one member's subscription metadata
  size_t max_assignment_bytes = 1 << 20;                     // one member's assignment
};

enum class GroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };
// Kafka's names: "Empty", "PreparingRebalance", "CompletingRebalance",
// "Stable", "Dead".
std::string_view group_state_name(GroupState state) noexcept;

struct Protocol {
  std::string name;  // an assignor: "range", "roundrobin", "cooperative-sticky", ...
  std::vector<std::byte> metadata;
};

struct JoinRequest {
  std::string group_id;
  std::string member_id;                         // empty for a member joining for the first time
  std::optional<std::string> group_instance_id;  // static membership
  std::string client_id;
  std::string client_host;
  std::chrono::milliseconds session_timeout{10'000};
  std::chrono::milliseconds rebalance_timeout{300'000};
  std::string protocol_type;  // "consumer"
  std::vector<Protocol> protocols;
  // Kafka JoinGroup v4+: a first join without a member id is answered with
  // kMemberIdRequired and the id to join with.
  bool require_known_member_id = false;
};

struct JoinMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<std::byte> metadata;  // for the chosen protocol
};

struct JoinResult {
  Status status;
  int32_t generation = -1;
  std::string protocol_type;
  std::string protocol_name;
  std::string leader_id;
  std::string member_id;  // also set with kMemberIdRequired
  // Only for the leader: every member's subscription, to assign from.
  std::vector<JoinMember> members;
};

struct SyncRequest {
  std::string group_id;
  std::string member_id;
  int32_t generation = -1;
  std::optional<std::string> group_instance_id;
  std::optional<std::string> protocol_type;  // checked when present (Kafka v5+)
  std::optional<std::string> protocol_name;
  // Only from the leader: member id -> its assignment.
  std::vector<std::pair<std::string, std::vector<std::byte>>> assignments;
};

struct SyncResult {
  Status status;
  std::string protocol_type;
  std::string protocol_name;
  std::vector<std::byte> assignment;
};

struct LeaveMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
};

struct LeaveResult {
  Status status;                      // for the whole request
  std::vector<Status> member_status;  // one per LeaveMember, in order
};

struct MemberDescription {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  std::vector<std::byte> metadata;    // subscription, for the chosen protocol
  std::vector<std::byte> assignment;  // as the leader sent it
};

struct GroupDescription {
  Status status;  // kUnknownGroup when the broker has neither members nor offsets for it
  std::string group_id;
  GroupState state = GroupState::kDead;
  std::string protocol_type;
  std::string protocol_name;
  int32_t generation = -1;
  std::vector<MemberDescription> members;
};

struct GroupListing {
  std::string group_id;
  std::string protocol_type;
  GroupState state = GroupState::kEmpty;
};

// The counters /metrics shows per group.
struct GroupStats {
  std::string group_id;
  GroupState state = GroupState::kEmpty;
  int32_t generation = -1;
  size_t members = 0;
  uint64_t rebalances = 0;  // since the broker started
};

class GroupCoordinator {
 public:
  // Loads DATA_DIR/groups. `cores` and `offsets` must outlive it.
  static Result<std::unique_ptr<GroupCoordinator>> open(CoreSet& cores, OffsetStore& offsets,
                                                        std::string data_dir, GroupLimits limits);
  virtual ~GroupCoordinator() = default;

  virtual size_t owner_core(std::string_view group_id) const = 0;

  virtual void join(JoinRequest request, asio::any_io_executor reply_on,
                    std::function<void(JoinResult)> done) = 0;
  virtual void sync(SyncRequest request, asio::any_io_executor reply_on,
                    std::function<void(SyncResult)> done) = 0;
  // kUnknownMember, kIllegalGeneration, kRebalanceInProgress (rejoin),
  // kFencedInstanceId, kUnknownGroup.
  virtual void heartbeat(std::string group_id, std::string member_id, int32_t generation,
                         std::optional<std::string> group_instance_id,
                         asio::any_io_executor reply_on, std::function<void(Status)> done) = 0;
  virtual void leave(std::string group_id, std::vector<LeaveMember> members,
                     asio::any_io_executor reply_on, std::function<void(LeaveResult)> done) = 0;

  // Whether an offset commit may be stored: a commit with generation -1 and
  // no member id is a "simple" commit, allowed while the group has no
  // members; otherwise the member must be in the group's current
  // generation (kUnknownMember, kIllegalGeneration, kRebalanceInProgress
  // while CompletingRebalance, kFencedInstanceId).
  virtual void check_commit(std::string group_id, std::string member_id, int32_t generation,
                            std::optional<std::string> group_instance_id,
                            asio::any_io_executor reply_on, std::function<void(Status)> done) = 0;

  virtual void describe(std::string group_id, asio::any_io_executor reply_on,
                        std::function<void(GroupDescription)> done) = 0;
  // Groups with members or committed offsets (the latter as Empty), by name.
  virtual void list(asio::any_io_executor reply_on,
                    std::function<void(std::vector<GroupListing>)> done) = 0;
  // Deletes a group without members and its committed offsets:
  // kGroupNotEmpty while it has members, kUnknownGroup when there is
  // nothing to delete.
  virtual void remove(std::string group_id, asio::any_io_executor reply_on,
                      std::function<void(Status)> done) = 0;
  virtual void stats(asio::any_io_executor reply_on,
                     std::function<void(std::vector<GroupStats>)> done) = 0;

  // On core `core`'s thread when the broker stops (Server's on_core_stop):
  // answers the joins and syncs parked on that core's groups with
  // kShuttingDown, so that their connections can close instead of holding
  // the shutdown until the rebalance timeout. The groups' state is kept.
  virtual void stop_core(size_t core) = 0;

 protected:
  GroupCoordinator() = default;
};

}  // namespace groups
}  // namespace spillway::broker
