// GroupMember: rebalance rounds and heartbeats (group_member.h).
#include "group_member.h"

#include <algorithm>
#include <map>

#include "assignors/cooperative_sticky_assignor.h"
#include "assignors/range_assignor.h"
#include "group_calls.h"
#include "spillway/common/kafka/consumer_protocol.h"

namespace spillway::consumer_internal {
namespace {

// Errors after which the member id is worthless: join afresh.
bool drops_member(ErrorCode code) {
  return code == ErrorCode::kUnknownMember || code == ErrorCode::kFencedInstanceId ||
         code == ErrorCode::kUnknownGroup;
}

// Partitions grouped by topic, as the consumer protocol lists them. The
// views point into `parts` and `storage`.
std::vector<kafka::ConsumerTopicPartitions> by_topic(const std::vector<TopicPartition>& parts,
                                                     std::vector<int32_t>& storage) {
  std::vector<TopicPartition> sorted = parts;
  std::sort(sorted.begin(), sorted.end());
  storage.clear();
  storage.reserve(sorted.size());
  for (const TopicPartition& tp : sorted) storage.push_back(tp.partition);
  std::vector<kafka::ConsumerTopicPartitions> out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j].topic == sorted[i].topic) ++j;
    // The topic name views `parts`' element with the same name.
    const auto same = std::find_if(parts.begin(), parts.end(), [&](const TopicPartition& tp) {
      return tp.topic == sorted[i].topic;
    });
    out.push_back({same->topic, std::span<const int32_t>(storage.data() + i, j - i)});
    i = j;
  }
  return out;
}

std::vector<TopicPartition> flatten(const wire::Array<kafka::ConsumerTopicPartitions>& topics) {
  std::vector<TopicPartition> out;
  for (const kafka::ConsumerTopicPartitions& t : topics) {
    for (int32_t p : t.partitions) out.push_back({std::string(t.topic), p});
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

GroupMember::GroupMember(GroupSettings settings, std::vector<std::string> topics)
    : settings_(std::move(settings)), topics_(std::move(topics)) {
  heartbeats_ = std::thread([this] { heartbeat_loop(); });
}

GroupMember::~GroupMember() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  heartbeats_.join();
}

void GroupMember::wait_for_rejoin(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return rejoin_.load() || stop_; });
}

int32_t GroupMember::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

std::string GroupMember::member_id() const {
  std::lock_guard lock(mu_);
  return member_id_;
}

bool GroupMember::in_generation() const {
  std::lock_guard lock(mu_);
  return !member_id_.empty() && generation_ >= 0;
}

bool GroupMember::refused(std::string_view member, int32_t generation, ErrorCode code) {
  std::lock_guard lock(mu_);
  return refused_locked(member, generation, code);
}

bool GroupMember::refused_locked(std::string_view member, int32_t generation, ErrorCode code) {
  // A stale answer (the consumer rejoined meanwhile) says nothing.
  if (member != member_id_ || generation != generation_) return false;
  if (code != ErrorCode::kRebalanceInProgress && code != ErrorCode::kIllegalGeneration &&
      !drops_member(code)) {
    return false;
  }
  active_ = false;
  if (drops_member(code)) {
    member_id_.clear();
    generation_ = -1;
  }
  rejoin_ = true;
  cv_.notify_all();
  return true;
}

void GroupMember::heartbeat_loop() {
  // A heartbeat must not wait longer than the session lasts.
  ConnectionOptions options = settings_.connection;
  options.connect_timeout = std::min(options.connect_timeout, settings_.session_timeout);
  options.request_timeout = std::min(options.request_timeout, settings_.session_timeout);
  options.client_id = "spillway-consumer-heartbeat";
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait_for(lock, settings_.heartbeat_interval, [&] { return stop_; });
    if (stop_) return;
    if (!active_) continue;
    const std::string member = member_id_;
    const int32_t generation = generation_;
    lock.unlock();
    Status st = heartbeat_channel_.is_open()
                    ? Status::Ok()
                    : heartbeat_channel_.connect(settings_.bootstrap, options);
    if (st.ok()) st = wire::heartbeat(heartbeat_channel_, settings_.group_id, member, generation);
    lock.lock();
    if (st.ok()) continue;
    const ErrorCode code = st.code();
    if (code == ErrorCode::kNotConnected || code == ErrorCode::kTimeout ||
        code == ErrorCode::kCorruptMessage || code == ErrorCode::kShuttingDown) {
      // The broker is away (restarting?): try again on a new connection.
      heartbeat_channel_.close();
      continue;
    }
    if (active_) refused_locked(member, generation, code);
  }
}

Result<std::vector<TopicPartition>> GroupMember::rejoin(wire::Channel& channel,
                                                        const std::vector<TopicPartition>& owned,
                                                        const PartitionCount& partition_count) {
  std::string member;
  int32_t previous_generation;
  {
    std::lock_guard lock(mu_);
    active_ = false;
    rejoin_ = true;
    member = member_id_;
    previous_generation = generation_;
  }
  const auto failed = [&](Status st) -> Status {
    std::lock_guard lock(mu_);
    if (drops_member(st.code())) {
      member_id_.clear();
      generation_ = -1;
    }
    return st;
  };

  // The subscription, in Kafka's consumer protocol.
  std::vector<std::string_view> topic_views(topics_.begin(), topics_.end());
  std::vector<int32_t> owned_storage;
  const std::vector<kafka::ConsumerTopicPartitions> owned_topics = by_topic(owned, owned_storage);
  kafka::ConsumerProtocolSubscription subscription;
  subscription.topics = topic_views;
  subscription.owned_partitions = owned_topics;
  subscription.generation_id = previous_generation;
  Result<std::vector<std::byte>> metadata = kafka::consumer_subscription_bytes(subscription);
  if (!metadata.ok()) return metadata.status();

  Result<wire::JoinAnswer> joined =
      wire::join_group(channel, {.group_id = settings_.group_id,
                                 .member_id = member,
                                 .session_timeout = settings_.session_timeout,
                                 .rebalance_timeout = settings_.rebalance_timeout,
                                 .protocol_name = settings_.assignor,
                                 .metadata = *metadata});
  if (!joined.ok()) return failed(joined.status());
  {
    std::lock_guard lock(mu_);
    member_id_ = joined->member_id;
    generation_ = joined->generation;
  }

  std::vector<std::pair<std::string, std::vector<std::byte>>> assignments;
  if (joined->leader_id == joined->member_id) {
    std::vector<std::pair<std::string, std::vector<std::byte>>> members;
    for (wire::JoinedMember& m : joined->members) {
      members.emplace_back(std::move(m.member_id), std::move(m.metadata));
    }
    Result<std::vector<std::pair<std::string, std::vector<std::byte>>>> assigned =
        assign(joined->protocol_name, members, partition_count);
    if (!assigned.ok()) return failed(assigned.status());
    assignments = std::move(*assigned);
  }
  Result<std::vector<std::byte>> mine =
      wire::sync_group(channel, settings_.group_id, joined->member_id, joined->generation,
                       assignments, settings_.rebalance_timeout);
  if (!mine.ok()) return failed(mine.status());
  std::vector<TopicPartition> out;
  if (!mine->empty()) {  // a member the leader gave nothing may get no bytes
    auto decoded = kafka::decode_consumer_assignment(*mine);
    if (!decoded.ok()) return failed(decoded.status());
    out = flatten(decoded->message.assigned_partitions);
  }
  {
    std::lock_guard lock(mu_);
    active_ = true;
    rejoin_ = false;
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::vector<std::byte>>>> GroupMember::assign(
    std::string_view protocol,
    const std::vector<std::pair<std::string, std::vector<std::byte>>>& members,
    const PartitionCount& partition_count) {
  std::vector<assignors::MemberSubscription> subscriptions;
  assignors::PartitionCounts counts;
  for (const auto& [id, bytes] : members) {
    auto decoded = kafka::decode_consumer_subscription(bytes);
    if (!decoded.ok()) return decoded.status();
    assignors::MemberSubscription s;
    s.member_id = id;
    for (std::string_view t : decoded->message.topics) s.topics.emplace_back(t);
    s.owned = flatten(decoded->message.owned_partitions);
    for (const std::string& t : s.topics) {
      if (counts.count(t)) continue;
      Result<int32_t> n = partition_count(t);
      if (!n.ok()) return n.status();
      counts[t] = *n;
    }
    subscriptions.push_back(std::move(s));
  }
  assignors::GroupAssignment result;
  if (protocol == assignors::kRangeAssignor) {
    result = assignors::range_assign(subscriptions, counts);
  } else if (protocol == assignors::kCooperativeStickyAssignor) {
    result = assignors::cooperative_sticky_assign(subscriptions, counts);
  } else {
    return Status(ErrorCode::kInconsistentGroupProtocol, "the group chose assignor '" +
                                                             std::string(protocol) +
                                                             "', which this client does not have");
  }
  std::vector<std::pair<std::string, std::vector<std::byte>>> out;
  for (const auto& [id, parts] : result) {
    std::vector<int32_t> storage;
    const std::vector<kafka::ConsumerTopicPartitions> topics = by_topic(parts, storage);
    kafka::ConsumerProtocolAssignment a;
    a.assigned_partitions = topics;
    Result<std::vector<std::byte>> bytes = kafka::consumer_assignment_bytes(a);
    if (!bytes.ok()) return bytes.status();
    out.emplace_back(id, std::move(*bytes));
  }
  return out;
}

Status GroupMember::leave(wire::Channel& channel) {
  std::string member;
  {
    std::lock_guard lock(mu_);
    active_ = false;
    member = std::exchange(member_id_, {});
    generation_ = -1;
  }
  if (member.empty()) return Status::Ok();
  return wire::leave_group(channel, settings_.group_id, member);
}

}  // namespace spillway::consumer_internal
