// Group: one consumer group's members, state, generation and chosen
// protocol (Kafka's classic group protocol; docs/consumer-groups.md). A
// plain state machine: no I/O, no timers, no threads. The coordinator owns
// it on the group's owner core, feeds it requests with the current time,
// calls tick() periodically so that deadlines (sessions, the rebalance
// timeout, the initial rebalance delay) take effect, and persists it when
// it settles (settled() turns true, on reaching Stable or Empty).
//
// Callbacks given to join() and sync() may be kept until the rebalance
// completes; each is called exactly once, from within a call on this
// object (never later than the object's destruction, which answers them
// with kShuttingDown).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "groups/group_coordinator.h"
#include "groups/group_store.h"

namespace spillway::broker::groups {

using Clock = std::chrono::steady_clock;
using JoinCallback = std::function<void(JoinResult)>;
using SyncCallback = std::function<void(SyncResult)>;

class Group {
 public:
  Group(std::string name, const GroupLimits& limits) : name_(std::move(name)), limits_(limits) {}
  // Restores a persisted group (Stable with its members, or Empty); the
  // members' sessions start at `now`.
  Group(const StoredGroup& stored, const GroupLimits& limits, Clock::time_point now);
  // Answers every parked join and sync with kShuttingDown.
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  const std::string& name() const { return name_; }
  GroupState state() const { return state_; }
  int32_t generation() const { return generation_; }
  size_t member_count() const { return members_.size(); }
  // Member ids handed out with kMemberIdRequired and not yet used.
  bool has_pending() const { return !pending_.empty(); }
  uint64_t rebalances() const { return rebalances_; }
  const std::string& protocol_type() const { return protocol_type_; }

  void join(JoinRequest request, Clock::time_point now, JoinCallback done);
  void sync(SyncRequest request, Clock::time_point now, SyncCallback done);
  Status heartbeat(std::string_view member_id, int32_t generation,
                   const std::optional<std::string>& instance_id, Clock::time_point now);
  LeaveResult leave(const std::vector<LeaveMember>& members, Clock::time_point now);
  Status check_commit(std::string_view member_id, int32_t generation,
                      const std::optional<std::string>& instance_id, Clock::time_point now);
  GroupDescription describe() const;

  // Applies every deadline that has passed by `now`.
  void tick(Clock::time_point now);
  // Answers every parked join and sync with `why` (the broker stops).
  void answer_parked(const Status& why);
  // Marks the group deleted: later requests see an unknown member.
  // Precondition: no members.
  void mark_dead() { state_ = GroupState::kDead; }

  // True once after each change that should be persisted (the group reached
  // Stable or Empty, or a static member was replaced while Stable); reading
  // it clears it.
  bool take_settled() { return std::exchange(settled_, false); }
  StoredGroup snapshot() const;

 private:
  struct Member {
    std::string id;
    std::optional<std::string> instance_id;
    std::string client_id;
    std::string client_host;
    std::chrono::milliseconds session_timeout{0};
    std::chrono::milliseconds rebalance_timeout{0};
    std::vector<Protocol> protocols;
    std::vector<std::byte> assignment;
    Clock::time_point session_deadline;
    JoinCallback join_waiter;  // set while its join is parked
    SyncCallback sync_waiter;  // set while its sync is parked
  };
  using Members = std::map<std::string, Member, std::less<>>;

  Status validate_join(const JoinRequest& request) const;
  bool supports(const JoinRequest& request) const;
  void join_new(JoinRequest request, Clock::time_point now, JoinCallback done);
  void join_known(JoinRequest request, Clock::time_point now, JoinCallback done);
  void replace_static(Member& old, JoinRequest request, Clock::time_point now, JoinCallback done);
  void add_member(std::string id, JoinRequest request, Clock::time_point now, JoinCallback done);
  static void update_member(Member& m, JoinRequest& request);
  static bool same_protocols(const Member& m, const std::vector<Protocol>& protocols);
  Status check_member(std::string_view member_id, const std::optional<std::string>& instance_id,
                      Members::iterator* out);
  void remove_member(Members::iterator it, const Status& why);
  void member_left(Clock::time_point now);

  void prepare_rebalance(Clock::time_point now);
  // Whether the initial delay still holds the join back at `now` (extending
  // it when members arrived during the last wait).
  bool in_initial_delay(Clock::time_point now);
  void try_complete_join(Clock::time_point now);
  void complete_join(Clock::time_point now);
  std::string select_protocol() const;
  JoinResult join_result(const Member& m) const;
  const std::vector<std::byte>* chosen_metadata(const Member& m) const;

  const std::string name_;
  const GroupLimits& limits_;
  GroupState state_ = GroupState::kEmpty;
  int32_t generation_ = 0;
  std::string protocol_type_;
  std::string protocol_name_;
  std::string leader_;
  Members members_;
  // Member ids handed out with kMemberIdRequired, until they join or expire.
  std::map<std::string, Clock::time_point, std::less<>> pending_;
  // Static members: group.instance.id -> member id.
  std::map<std::string, std::string, std::less<>> static_members_;
  Clock::time_point join_deadline_;
  // Kafka's initial delayed join: the first rebalance of an Empty group
  // waits initial_rebalance_delay, and again (up to the rebalance timeout in
  // all) as long as new members keep arriving during each wait.
  std::optional<Clock::time_point> initial_delay_until_;
  std::chrono::milliseconds initial_delay_left_{0};
  bool joined_during_delay_ = false;
  uint64_t rebalances_ = 0;
  bool settled_ = false;
};

}  // namespace spillway::broker::groups
