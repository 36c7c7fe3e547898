// Group: Kafka's classic group state machine for one group.
#include "groups/group.h"

#include <algorithm>
#include <random>

namespace spillway::broker::groups {

namespace {

// Kafka's member ids: the client id, a dash and something unique.
std::string new_member_id(std::string_view client_id) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string id(client_id.empty() ? std::string_view("member") : client_id);
  id.push_back('-');
  for (int i = 0; i < 2; ++i) {
    uint64_t v = random();
    for (int d = 0; d < 16; ++d, v >>= 4) id.push_back(kDigits[v & 15]);
  }
  return id;
}

Status fail(ErrorCode code, std::string message) {
  return Status(code, std::move(message));
}

}  // namespace

std::string_view group_state_name(GroupState state) noexcept {
  switch (state) {
    case GroupState::kEmpty:
      return "Empty";
    case GroupState::kPreparingRebalance:
      return "PreparingRebalance";
    case GroupState::kCompletingRebalance:
      return "CompletingRebalance";
    case GroupState::kStable:
      return "Stable";
    case GroupState::kDead:
      return "Dead";
  }
  return "Dead";
}

Group::Group(const StoredGroup& stored, const GroupLimits& limits, Clock::time_point now)
    : name_(stored.group_id),
      limits_(limits),
      state_(stored.state),
      generation_(stored.generation),
      protocol_type_(stored.protocol_type),
      protocol_name_(stored.protocol_name),
      leader_(stored.leader_id) {
  for (const StoredMember& s : stored.members) {
    Member m;
    m.id = s.member_id;
    m.instance_id = s.group_instance_id;
    m.client_id = s.client_id;
    m.client_host = s.client_host;
    m.session_timeout = std::chrono::milliseconds(s.session_timeout_ms);
    m.rebalance_timeout = std::chrono::milliseconds(s.rebalance_timeout_ms);
    m.protocols = s.protocols;
    m.assignment = s.assignment;
    m.session_deadline = now + m.session_timeout;
    if (m.instance_id) static_members_[*m.instance_id] = m.id;
    members_.emplace(m.id, std::move(m));
  }
  if (!members_.contains(leader_) && !members_.empty()) leader_ = members_.begin()->first;
}

Group::~Group() {
  answer_parked(Status(ErrorCode::kShuttingDown, "the broker is stopping"));
}

void Group::answer_parked(const Status& why) {
  for (auto& [id, m] : members_) {
    if (m.join_waiter) std::exchange(m.join_waiter, nullptr)(JoinResult{.status = why});
    if (m.sync_waiter) std::exchange(m.sync_waiter, nullptr)(SyncResult{.status = why});
  }
}

Status Group::validate_join(const JoinRequest& request) const {
  if (request.session_timeout < limits_.min_session_timeout ||
      request.session_timeout > limits_.max_session_timeout) {
    return fail(ErrorCode::kInvalidSessionTimeout,
                "session timeout " + std::to_string(request.session_timeout.count()) +
                    " ms outside the broker's [" +
                    std::to_string(limits_.min_session_timeout.count()) + ", " +
                    std::to_string(limits_.max_session_timeout.count()) + "] ms");
  }
  if (request.protocol_type.empty() || request.protocols.empty()) {
    return fail(ErrorCode::kInconsistentGroupProtocol,
                "a join needs a protocol type and protocols");
  }
  if (request.protocols.size() > limits_.max_protocols) {
    return fail(ErrorCode::kInvalidArgument,
                "more than " + std::to_string(limits_.max_protocols) + " protocols in one join");
  }
  for (const Protocol& p : request.protocols) {
    if (p.metadata.size() > limits_.max_metadata_bytes) {
      return fail(
          ErrorCode::kInvalidArgument,
          "protocol metadata above " + std::to_string(limits_.max_metadata_bytes) + " bytes");
    }
  }
  if (!supports(request)) {
    return fail(ErrorCode::kInconsistentGroupProtocol,
                "protocol type or assignors shared with no member of the group");
  }
  return Status::Ok();
}

// Kafka's rule: an empty group takes any protocol; otherwise the type must
// match and one of the joiner's protocols must be one every member offers.
bool Group::supports(const JoinRequest& request) const {
  if (members_.empty()) return true;
  if (request.protocol_type != protocol_type_) return false;
  return std::any_of(request.protocols.begin(), request.protocols.end(), [&](const Protocol& p) {
    return std::all_of(members_.begin(), members_.end(), [&](const auto& entry) {
      // The joiner itself (a known member changing its subscription) does
      // not vote with its old protocols.
      if (entry.first == request.member_id) return true;
      const auto& ps = entry.second.protocols;
      return std::any_of(ps.begin(), ps.end(), [&](const Protocol& q) { return q.name == p.name; });
    });
  });
}

void Group::join(JoinRequest request, Clock::time_point now, JoinCallback done) {
  if (state_ == GroupState::kDead) {
    done(JoinResult{.status = fail(ErrorCode::kUnknownMember, "the group was deleted")});
    return;
  }
  if (Status st = validate_join(request); !st.ok()) {
    done(JoinResult{.status = std::move(st)});
    return;
  }
  if (request.member_id.empty()) {
    join_new(std::move(request), now, std::move(done));
  } else {
    join_known(std::move(request), now, std::move(done));
  }
}

void Group::join_new(JoinRequest request, Clock::time_point now, JoinCallback done) {
  if (request.group_instance_id) {
    auto known = static_members_.find(*request.group_instance_id);
    if (known != static_members_.end()) {
      replace_static(members_.at(known->second), std::move(request), now, std::move(done));
      return;
    }
  }
  if (members_.size() + pending_.size() >= limits_.max_group_size) {
    done(JoinResult{.status = fail(ErrorCode::kGroupFull,
                                   "the group has " + std::to_string(limits_.max_group_size) +
                                       " members (max_group_size)")});
    return;
  }
  std::string id = new_member_id(request.client_id);
  if (!request.group_instance_id && request.require_known_member_id) {
    // Kafka v4+: the id is only handed out; the member joins with it, so a
    // client that never comes back leaves no member behind.
    pending_[id] = now + request.session_timeout;
    done(JoinResult{.status = fail(ErrorCode::kMemberIdRequired, "rejoin with the member id given"),
                    .member_id = std::move(id)});
    return;
  }
  add_member(std::move(id), std::move(request), now, std::move(done));
}

void Group::join_known(JoinRequest request, Clock::time_point now, JoinCallback done) {
  if (auto p = pending_.find(request.member_id); p != pending_.end()) {
    pending_.erase(p);
    std::string id = request.member_id;
    add_member(std::move(id), std::move(request), now, std::move(done));
    return;
  }
  Members::iterator it;
  if (Status st = check_member(request.member_id, request.group_instance_id, &it); !st.ok()) {
    done(JoinResult{.status = std::move(st)});
    return;
  }
  Member& m = it->second;
  m.session_deadline = now + request.session_timeout;
  switch (state_) {
    case GroupState::kPreparingRebalance: {
      update_member(m, request);
      if (m.join_waiter) {
        std::exchange(m.join_waiter, nullptr)(JoinResult{
            .status = fail(ErrorCode::kRebalanceInProgress, "a newer join of this member")});
      }
      m.join_waiter = std::move(done);
      try_complete_join(now);
      return;
    }
    case GroupState::kCompletingRebalance:
      if (same_protocols(m, request.protocols)) {
        done(join_result(m));  // a retried join: the same answer again
        return;
      }
      update_member(m, request);
      m.join_waiter = std::move(done);
      prepare_rebalance(now);
      return;
    case GroupState::kStable:
      if (m.id != leader_ && same_protocols(m, request.protocols)) {
        JoinResult r = join_result(m);
        r.members.clear();
        done(std::move(r));
        return;
      }
      // The leader rejoining or a changed subscription: a new assignment.
      update_member(m, request);
      m.join_waiter = std::move(done);
      prepare_rebalance(now);
      return;
    case GroupState::kEmpty:
    case GroupState::kDead:
      break;
  }
  done(JoinResult{.status = fail(ErrorCode::kUnknownMember, "not a member of the group")});
}

// A static member restarted: the new member id takes the old one's place
// (and assignment); the old id is fenced. While Stable with the same
// subscription, nobody else rebalances.
void Group::replace_static(Member& old, JoinRequest request, Clock::time_point now,
                           JoinCallback done) {
  const Status fenced(ErrorCode::kFencedInstanceId,
                      "a newer member joined with this group.instance.id");
  if (old.join_waiter) std::exchange(old.join_waiter, nullptr)(JoinResult{.status = fenced});
  if (old.sync_waiter) std::exchange(old.sync_waiter, nullptr)(SyncResult{.status = fenced});
  auto node = members_.extract(old.id);
  Member& m = node.mapped();
  const std::string old_id = m.id;
  m.id = new_member_id(request.client_id);
  node.key() = m.id;
  static_members_[*request.group_instance_id] = m.id;
  if (leader_ == old_id) leader_ = m.id;
  m.session_deadline = now + request.session_timeout;
  const bool unchanged = same_protocols(m, request.protocols);
  update_member(m, request);
  Member& placed = members_.insert(std::move(node)).position->second;
  if (state_ == GroupState::kStable && unchanged) {
    settled_ = true;  // the member id changed: persist it
    JoinResult r = join_result(placed);
    r.members.clear();  // the assignment stays: no one assigns again
    // A replaced leader is told the old member id leads, as Kafka does
    // (before JoinGroup v9's skip_assignment): otherwise the new member
    // takes itself for the leader and runs its assignor over no members,
    // which crashes librdkafka 2.0's cooperative-sticky assignor.
    if (leader_ == placed.id) r.leader_id = old_id;
    done(std::move(r));
    return;
  }
  placed.join_waiter = std::move(done);
  if (state_ == GroupState::kPreparingRebalance) {
    try_complete_join(now);
  } else {
    prepare_rebalance(now);
  }
}

void Group::add_member(std::string id, JoinRequest request, Clock::time_point now,
                       JoinCallback done) {
  if (members_.empty()) protocol_type_ = request.protocol_type;
  Member m;
  m.id = id;
  m.instance_id = request.group_instance_id;
  m.session_deadline = now + request.session_timeout;
  update_member(m, request);
  m.join_waiter = std::move(done);
  if (m.instance_id) static_members_[*m.instance_id] = id;
  members_.emplace(std::move(id), std::move(m));
  if (initial_delay_until_) joined_during_delay_ = true;
  if (state_ == GroupState::kPreparingRebalance) {
    try_complete_join(now);
  } else {
    prepare_rebalance(now);
  }
}

void Group::update_member(Member& m, JoinRequest& request) {
  m.client_id = std::move(request.client_id);
  m.client_host = std::move(request.client_host);
  m.session_timeout = request.session_timeout;
  m.rebalance_timeout = request.rebalance_timeout;
  m.protocols = std::move(request.protocols);
}

bool Group::same_protocols(const Member& m, const std::vector<Protocol>& protocols) {
  return std::equal(m.protocols.begin(), m.protocols.end(), protocols.begin(), protocols.end(),
                    [](const Protocol& a, const Protocol& b) {
                      return a.name == b.name && a.metadata == b.metadata;
                    });
}

// Kafka's order: a fenced static instance first, then the member id.
Status Group::check_member(std::string_view member_id,
                           const std::optional<std::string>& instance_id, Members::iterator* out) {
  if (instance_id) {
    auto s = static_members_.find(*instance_id);
    if (s != static_members_.end() && s->second != member_id) {
      return fail(ErrorCode::kFencedInstanceId,
                  "group.instance.id " + *instance_id + " belongs to a newer member");
    }
  }
  auto it = members_.find(member_id);
  if (it == members_.end() || state_ == GroupState::kDead) {
    return fail(ErrorCode::kUnknownMember,
                "member " + std::string(member_id) + " is not in group " + name_);
  }
  *out = it;
  return Status::Ok();
}

void Group::sync(SyncRequest request, Clock::time_point now, SyncCallback done) {
  Members::iterator it;
  if (Status st = check_member(request.member_id, request.group_instance_id, &it); !st.ok()) {
    done(SyncResult{.status = std::move(st)});
    return;
  }
  if (request.generation != generation_) {
    done(SyncResult{.status = fail(ErrorCode::kIllegalGeneration,
                                   "generation " + std::to_string(request.generation) +
                                       ", the group's is " + std::to_string(generation_))});
    return;
  }
  if ((request.protocol_type && *request.protocol_type != protocol_type_) ||
      (request.protocol_name && *request.protocol_name != protocol_name_)) {
    done(SyncResult{.status = fail(ErrorCode::kInconsistentGroupProtocol,
                                   "protocol type or name differs from the group's")});
    return;
  }
  Member& m = it->second;
  m.session_deadline = now + m.session_timeout;
  if (state_ == GroupState::kPreparingRebalance) {
    done(SyncResult{.status = fail(ErrorCode::kRebalanceInProgress, "the group is rebalancing")});
    return;
  }
  if (state_ == GroupState::kStable) {
    done(SyncResult{.status = Status::Ok(),
                    .protocol_type = protocol_type_,
                    .protocol_name = protocol_name_,
                    .assignment = m.assignment});
    return;
  }
  if (state_ != GroupState::kCompletingRebalance) {
    done(SyncResult{.status = fail(ErrorCode::kUnknownMember, "not a member of the group")});
    return;
  }
  if (m.sync_waiter) {
    std::exchange(m.sync_waiter, nullptr)(
        SyncResult{.status = fail(ErrorCode::kRebalanceInProgress, "a newer sync of this member")});
  }
  if (m.id != leader_) {
    // A follower's assignments are ignored, as Kafka does.
    m.sync_waiter = std::move(done);
    return;
  }
  for (const auto& [member, assignment] : request.assignments) {
    if (assignment.size() > limits_.max_assignment_bytes) {
      done(SyncResult{.status = fail(ErrorCode::kInvalidArgument,
                                     "an assignment above " +
                                         std::to_string(limits_.max_assignment_bytes) + " bytes")});
      prepare_rebalance(now);
      return;
    }
  }
  m.sync_waiter = std::move(done);
  for (auto& [id, member] : members_) member.assignment.clear();
  for (auto& [member, assignment] : request.assignments) {
    if (auto target = members_.find(member); target != members_.end()) {
      target->second.assignment = std::move(assignment);
    }
  }
  state_ = GroupState::kStable;
  settled_ = true;
  for (auto& [id, member] : members_) {
    if (!member.sync_waiter) continue;
    std::exchange(member.sync_waiter, nullptr)(SyncResult{.status = Status::Ok(),
                                                          .protocol_type = protocol_type_,
                                                          .protocol_name = protocol_name_,
                                                          .assignment = member.assignment});
  }
}

Status Group::heartbeat(std::string_view member_id, int32_t generation,
                        const std::optional<std::string>& instance_id, Clock::time_point now) {
  Members::iterator it;
  SPILLWAY_RETURN_IF_ERROR(check_member(member_id, instance_id, &it));
  if (generation != generation_) {
    return fail(ErrorCode::kIllegalGeneration, "generation " + std::to_string(generation) +
                                                   ", the group's is " +
                                                   std::to_string(generation_));
  }
  it->second.session_deadline = now + it->second.session_timeout;
  if (state_ == GroupState::kPreparingRebalance) {
    return fail(ErrorCode::kRebalanceInProgress, "the group is rebalancing: rejoin");
  }
  return Status::Ok();
}

LeaveResult Group::leave(const std::vector<LeaveMember>& members, Clock::time_point now) {
  LeaveResult result;
  bool removed = false;
  for (const LeaveMember& leaving : members) {
    std::string id = leaving.member_id;
    if (leaving.group_instance_id) {
      auto s = static_members_.find(*leaving.group_instance_id);
      if (s == static_members_.end()) {
        result.member_status.push_back(
            fail(ErrorCode::kUnknownMember, "unknown group.instance.id"));
        continue;
      }
      if (!id.empty() && id != s->second) {
        result.member_status.push_back(
            fail(ErrorCode::kFencedInstanceId, "group.instance.id held by another member"));
        continue;
      }
      id = s->second;
    }
    if (pending_.erase(id) > 0) {
      result.member_status.push_back(Status::Ok());
      continue;
    }
    auto it = members_.find(id);
    if (it == members_.end() || state_ == GroupState::kDead) {
      result.member_status.push_back(
          fail(ErrorCode::kUnknownMember, "member " + id + " is not in group " + name_));
      continue;
    }
    remove_member(it, fail(ErrorCode::kUnknownMember, "the member left the group"));
    removed = true;
    result.member_status.push_back(Status::Ok());
  }
  if (removed) member_left(now);
  return result;
}

void Group::remove_member(Members::iterator it, const Status& why) {
  Member& m = it->second;
  if (m.join_waiter) std::exchange(m.join_waiter, nullptr)(JoinResult{.status = why});
  if (m.sync_waiter) std::exchange(m.sync_waiter, nullptr)(SyncResult{.status = why});
  if (m.instance_id) {
    auto s = static_members_.find(*m.instance_id);
    if (s != static_members_.end() && s->second == m.id) static_members_.erase(s);
  }
  members_.erase(it);
}

// After members left or died: the others rebalance without them.
void Group::member_left(Clock::time_point now) {
  if (state_ == GroupState::kStable || state_ == GroupState::kCompletingRebalance) {
    prepare_rebalance(now);
  } else if (state_ == GroupState::kPreparingRebalance) {
    try_complete_join(now);
  }
}

Status Group::check_commit(std::string_view member_id, int32_t generation,
                           const std::optional<std::string>& instance_id, Clock::time_point now) {
  if (state_ == GroupState::kDead) return fail(ErrorCode::kUnknownMember, "the group was deleted");
  if (generation < 0 && member_id.empty() && members_.empty()) return Status::Ok();
  Members::iterator it;
  SPILLWAY_RETURN_IF_ERROR(check_member(member_id, instance_id, &it));
  if (generation != generation_) {
    return fail(ErrorCode::kIllegalGeneration, "generation " + std::to_string(generation) +
                                                   ", the group's is " +
                                                   std::to_string(generation_));
  }
  if (state_ == GroupState::kCompletingRebalance) {
    return fail(ErrorCode::kRebalanceInProgress, "the group is completing a rebalance");
  }
  it->second.session_deadline = now + it->second.session_timeout;
  return Status::Ok();
}

GroupDescription Group::describe() const {
  GroupDescription d;
  d.status = Status::Ok();
  d.group_id = name_;
  d.state = state_;
  d.protocol_type = protocol_type_;
  d.generation = generation_;
  // As Kafka: the protocol, subscriptions and assignments only once Stable.
  const bool stable = state_ == GroupState::kStable;
  if (stable) d.protocol_name = protocol_name_;
  for (const auto& [id, m] : members_) {
    MemberDescription md{.member_id = id,
                         .group_instance_id = m.instance_id,
                         .client_id = m.client_id,
                         .client_host = m.client_host};
    if (stable) {
      if (const auto* meta = chosen_metadata(m)) md.metadata = *meta;
      md.assignment = m.assignment;
    }
    d.members.push_back(std::move(md));
  }
  return d;
}

void Group::tick(Clock::time_point now) {
  if (state_ == GroupState::kDead) return;
  std::erase_if(pending_, [&](const auto& p) { return p.second <= now; });
  bool expired = false;
  for (auto it = members_.begin(); it != members_.end();) {
    // A member waiting for its join or sync answer is alive: the rebalance
    // timeout bounds that wait instead.
    Member& m = it->second;
    if (!m.join_waiter && !m.sync_waiter && m.session_deadline <= now) {
      remove_member(it++, fail(ErrorCode::kUnknownMember, "session timed out"));
      expired = true;
    } else {
      ++it;
    }
  }
  if (expired) member_left(now);
  if (state_ != GroupState::kPreparingRebalance) return;
  if (now >= join_deadline_) {
    complete_join(now);
  } else {
    try_complete_join(now);
  }
}

void Group::prepare_rebalance(Clock::time_point now) {
  if (state_ == GroupState::kCompletingRebalance) {
    for (auto& [id, m] : members_) {
      m.assignment.clear();
      if (m.sync_waiter) {
        std::exchange(m.sync_waiter, nullptr)(SyncResult{
            .status = fail(ErrorCode::kRebalanceInProgress, "the group is rebalancing: rejoin")});
      }
    }
  }
  std::chrono::milliseconds timeout{0};
  for (const auto& [id, m] : members_) timeout = std::max(timeout, m.rebalance_timeout);
  // Kafka's group.initial.rebalance.delay.ms: the first rebalance of an
  // empty group waits for more consumers to arrive (bounded by the
  // rebalance timeout).
  if (state_ == GroupState::kEmpty) {
    const auto delay = std::min(limits_.initial_rebalance_delay, timeout);
    initial_delay_until_ = now + delay;
    initial_delay_left_ = timeout - delay;
    joined_during_delay_ = false;
  } else {
    initial_delay_until_.reset();
  }
  state_ = GroupState::kPreparingRebalance;
  join_deadline_ = now + timeout;
  ++rebalances_;
  try_complete_join(now);
}

bool Group::in_initial_delay(Clock::time_point now) {
  if (!initial_delay_until_) return false;
  if (*initial_delay_until_ > now) return true;
  if (joined_during_delay_ && initial_delay_left_.count() > 0) {
    const auto delay = std::min(limits_.initial_rebalance_delay, initial_delay_left_);
    initial_delay_left_ -= delay;
    initial_delay_until_ = now + delay;
    joined_during_delay_ = false;
    return true;
  }
  initial_delay_until_.reset();
  return false;
}

void Group::try_complete_join(Clock::time_point now) {
  if (state_ != GroupState::kPreparingRebalance) return;
  if (in_initial_delay(now)) return;
  if (!pending_.empty()) return;
  const bool all_joined = std::all_of(members_.begin(), members_.end(),
                                      [](const auto& e) { return bool(e.second.join_waiter); });
  if (all_joined) complete_join(now);
}

void Group::complete_join(Clock::time_point now) {
  initial_delay_until_.reset();
  // Whoever did not rejoin in time is out.
  for (auto it = members_.begin(); it != members_.end();) {
    if (!it->second.join_waiter) {
      remove_member(it++, fail(ErrorCode::kUnknownMember, "did not rejoin in time"));
    } else {
      ++it;
    }
  }
  ++generation_;
  if (members_.empty()) {
    state_ = GroupState::kEmpty;
    protocol_name_.clear();
    leader_.clear();
    settled_ = true;
    return;
  }
  protocol_name_ = select_protocol();
  if (!members_.contains(leader_)) leader_ = members_.begin()->first;
  state_ = GroupState::kCompletingRebalance;
  for (auto& [id, m] : members_) {
    m.session_deadline = now + m.session_timeout;
    JoinResult r = join_result(m);
    std::exchange(m.join_waiter, nullptr)(std::move(r));
  }
}

// Kafka's vote: among the protocols every member offers, each member votes
// for the first of its own list; the most votes wins (ties: the leader's
// order decides).
std::string Group::select_protocol() const {
  std::vector<std::string_view> candidates;
  const Member& first =
      members_.contains(leader_) ? members_.at(leader_) : members_.begin()->second;
  for (const Protocol& p : first.protocols) {
    const bool everyone = std::all_of(members_.begin(), members_.end(), [&](const auto& e) {
      const auto& ps = e.second.protocols;
      return std::any_of(ps.begin(), ps.end(), [&](const Protocol& q) { return q.name == p.name; });
    });
    if (everyone) candidates.push_back(p.name);
  }
  if (candidates.empty()) return first.protocols.empty() ? std::string() : first.protocols[0].name;
  std::vector<size_t> votes(candidates.size(), 0);
  for (const auto& [id, m] : members_) {
    for (const Protocol& p : m.protocols) {
      auto c = std::find(candidates.begin(), candidates.end(), p.name);
      if (c != candidates.end()) {
        ++votes[static_cast<size_t>(c - candidates.begin())];
        break;
      }
    }
  }
  const auto best = std::max_element(votes.begin(), votes.end());
  return std::string(candidates[static_cast<size_t>(best - votes.begin())]);
}

const std::vector<std::byte>* Group::chosen_metadata(const Member& m) const {
  for (const Protocol& p : m.protocols) {
    if (p.name == protocol_name_) return &p.metadata;
  }
  return nullptr;
}

JoinResult Group::join_result(const Member& m) const {
  JoinResult r{.status = Status::Ok(),
               .generation = generation_,
               .protocol_type = protocol_type_,
               .protocol_name = protocol_name_,
               .leader_id = leader_,
               .member_id = m.id};
  if (m.id == leader_) {
    r.members.reserve(members_.size());
    for (const auto& [id, member] : members_) {
      const auto* meta = chosen_metadata(member);
      r.members.push_back({.member_id = id,
                           .group_instance_id = member.instance_id,
                           .metadata = meta ? *meta : std::vector<std::byte>()});
    }
  }
  return r;
}

StoredGroup Group::snapshot() const {
  StoredGroup s{.group_id = name_,
                .state = members_.empty() ? GroupState::kEmpty : GroupState::kStable,
                .generation = generation_,
                .protocol_type = protocol_type_,
                .protocol_name = protocol_name_,
                .leader_id = leader_};
  for (const auto& [id, m] : members_) {
    s.members.push_back({.member_id = id,
                         .group_instance_id = m.instance_id,
                         .client_id = m.client_id,
                         .client_host = m.client_host,
                         .session_timeout_ms = static_cast<int32_t>(m.session_timeout.count()),
                         .rebalance_timeout_ms = static_cast<int32_t>(m.rebalance_timeout.count()),
                         .protocols = m.protocols,
                         .assignment = m.assignment});
  }
  return s;
}

}  // namespace spillway::broker::groups
