// GroupMember: a Consumer's membership of its consumer group (Kafka's
// classic protocol over the native requests, docs/protocol.md "Consumer
// groups").
//
// It owns the member id and generation, runs one rebalance round at a time
// for the consumer's thread (rejoin(): JoinGroup with the subscription and
// the partitions owned, the assignor when this member leads, SyncGroup),
// and keeps the membership alive from a background thread that sends a
// Heartbeat every heartbeat interval on a connection of its own. When a
// heartbeat (or a commit: refused()) says the group is rebalancing, or that
// this member's generation or id is no longer valid, it raises
// needs_rejoin(); the consumer's next poll() rejoins. Transport failures of heartbeats are
// retried at the next interval on a new connection (a restarted broker
// reloads the group with its members and generation, so heartbeats simply
// resume).
//
// Concurrency: rejoin(), leave() and the accessors are for the consumer's
// thread; the heartbeat thread shares only the member id, generation and
// flags, under a mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "channel.h"
#include "spillway/topic_partition.h"

namespace spillway::consumer_internal {

struct GroupSettings {
  std::string bootstrap;
  ConnectionOptions connection;
  std::string group_id;
  std::string assignor;  // "range" or "cooperative-sticky"
  std::chrono::milliseconds session_timeout{10'000};
  std::chrono::milliseconds rebalance_timeout{60'000};
  std::chrono::milliseconds heartbeat_interval{3'000};
};

class GroupMember {
 public:
  // Partition count of a topic, 0 when it does not exist.
  using PartitionCount = std::function<Result<int32_t>(std::string_view topic)>;

  GroupMember(GroupSettings settings, std::vector<std::string> topics);
  ~GroupMember();  // stops the heartbeat thread
  GroupMember(const GroupMember&) = delete;
  GroupMember& operator=(const GroupMember&) = delete;

  const GroupSettings& settings() const noexcept { return settings_; }
  bool needs_rejoin() const noexcept { return rejoin_.load(); }
  // Another round is needed (a cooperative member gave partitions up).
  void request_rejoin() noexcept { rejoin_ = true; }
  // Waits up to `timeout` for needs_rejoin() (a member without partitions
  // has nothing else to do in a poll).
  void wait_for_rejoin(std::chrono::milliseconds timeout);

  // One rebalance round on `channel`, `owned` being what this member holds
  // now (cooperative assignors keep it). On success the member is in the
  // new generation and heartbeating, and the result is its assignment.
  // Errors: the coordinator's (kUnknownMember, kFencedInstanceId and
  // kUnknownGroup also drop the member id, so the next round joins afresh),
  // transport errors, kInconsistentGroupProtocol for an assignor this
  // client does not have, kCorruptMessage for undecodable consumer
  // protocol bytes. After an error needs_rejoin() stays true.
  Result<std::vector<TopicPartition>> rejoin(wire::Channel& channel,
                                             const std::vector<TopicPartition>& owned,
                                             const PartitionCount& partition_count);
  // Leaves the group (when a member) and stops heartbeating.
  Status leave(wire::Channel& channel);

  int32_t generation() const;
  std::string member_id() const;
  // Whether this member is in a generation (a member id and a generation
  // the last round gave it): only then may it commit.
  bool in_generation() const;

  // The coordinator refused a heartbeat or commit of `member` in
  // `generation` with `code`: kRebalanceInProgress and kIllegalGeneration
  // raise needs_rejoin(); kUnknownMember, kFencedInstanceId and
  // kUnknownGroup also drop the member id. Other codes, and answers about
  // an older member or generation (the member rejoined meanwhile), change
  // nothing. Returns whether the member must rejoin.
  bool refused(std::string_view member, int32_t generation, ErrorCode code);

 private:
  // refused(), with mu_ held.
  bool refused_locked(std::string_view member, int32_t generation, ErrorCode code);
  void heartbeat_loop();
  // The leader's part: every member's assignment bytes.
  Result<std::vector<std::pair<std::string, std::vector<std::byte>>>> assign(
      std::string_view protocol,
      const std::vector<std::pair<std::string, std::vector<std::byte>>>& members,
      const PartitionCount& partition_count);

  const GroupSettings settings_;
  const std::vector<std::string> topics_;
  std::atomic<bool> rejoin_{true};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string member_id_;            // guarded by mu_
  int32_t generation_ = -1;          // guarded by mu_
  bool active_ = false;              // in a generation: heartbeat; guarded by mu_
  bool stop_ = false;                // guarded by mu_
  wire::Channel heartbeat_channel_;  // the heartbeat thread's only
  std::thread heartbeats_;
};

}  // namespace spillway::consumer_internal
