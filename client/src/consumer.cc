// Consumer: Fetch long polls and the control calls (Metadata, FetchOffsets,
// CommitOffsets or, subscribed, CommitMemberOffsets) on one Channel. It composes
//   Assignment      (consumer_assignment.h)  assigned partitions, positions
//   FetchedBatches  (fetched_batches.h)      fetched bytes -> checked records
// and the one-round-trip lookups of metadata.h and group_offsets.h. Fetch
// responses are read into the channel's reused buffer, which the returned
// records point into; control calls read their answers into memory of their
// own, so committing never invalidates records already handed out.
#include "spillway/consumer.h"

#include <algorithm>

#include "assignors/cooperative_sticky_assignor.h"
#include "assignors/range_assignor.h"
#include "channel.h"
#include "consumer_assignment.h"
#include "fetched_batches.h"
#include "group_member.h"
#include "group_offsets.h"
#include "metadata.h"
#include "spillway/common/messages/fetch.h"

namespace spillway {

using consumer_internal::AssignedPartition;
using consumer_internal::Position;

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

struct Consumer::Impl {
  explicit Impl(ConsumerOptions o) : options(std::move(o)), fetched(options.max_poll_records) {}

  const ConsumerOptions options;
  wire::Channel channel;
  consumer_internal::Assignment assignment;
  consumer_internal::FetchedBatches fetched;
  std::byte request_scratch[4096];
  // The Fetch request's topics and partitions, rebuilt by send_fetch() in
  // storage kept across polls (so a steady poll loop allocates nothing).
  std::vector<messages::FetchTopicRequest> fetch_topics;
  std::vector<messages::FetchPartitionRequest> fetch_partitions;
  // subscribe(): the group membership, the listener, and what the group
  // gave this member (the same partitions as `assignment`).
  std::unique_ptr<consumer_internal::GroupMember> group;
  std::shared_ptr<RebalanceListener> listener;
  std::vector<TopicPartition> owned;

  Status ensure_connected() {
    if (channel.is_open()) return Status::Ok();
    return channel.connect(options.bootstrap, {.connect_timeout = options.connect_timeout,
                                               .request_timeout = options.request_timeout,
                                               .max_response_bytes = options.max_response_bytes,
                                               .client_id = "spillway-consumer",
                                               .security = options.security});
  }

  // Runs fn(Channel&) -> Result<T> or Status; when that fails with
  // kNotConnected (e.g. the broker closed an idle connection or restarted),
  // once more on a new connection.
  template <typename Fn>
  auto with_reconnect(Fn&& fn) -> decltype(fn(std::declval<wire::Channel&>())) {
    if (Status st = ensure_connected(); !st.ok()) return st;
    auto r = fn(channel);
    if (status_of(r).code() != ErrorCode::kNotConnected) return r;
    channel.close();
    if (Status st = ensure_connected(); !st.ok()) return st;
    return fn(channel);
  }
  static Status status_of(const Status& st) { return st; }
  template <typename T>
  static Status status_of(const Result<T>& r) {
    return r.status();
  }

  Result<TopicDescription> describe(std::string_view topic) {
    return with_reconnect([&](wire::Channel& c) { return wire::describe_topic(c, topic); });
  }

  // Moves `partition` of `topic` to `position`; what was fetched is
  // refetched from the positions. kUnknownPartition if it is not assigned.
  Status seek(std::string_view topic, int32_t partition, Position position);
  // Turns every unresolved position into an offset: the group's committed
  // offset, else the log start or end per the reset policy.
  Status resolve_positions();
  Status resolve_committed(std::string_view topic, std::span<AssignedPartition> partitions);
  // Rejoins the group while it asks for it, running the listener
  // (group_member.h does the rounds).
  Status ensure_group(Consumer& self);
  // Tells the listener, then drops `partitions` from the assignment.
  void revoke(Consumer& self, std::vector<TopicPartition> partitions);
  // Sends one Fetch for every assigned partition, long-polling up to
  // `wait`; returns its correlation id.
  Result<int32_t> send_fetch(std::chrono::milliseconds wait);
  // Reads the answer to the Fetch `correlation_id` (within the request
  // timeout plus the long poll's `wait`).
  Result<wire::Response> read_fetch(int32_t correlation_id, std::chrono::milliseconds wait);
  // Hands each partition's batches in a Fetch response to `fetched`, moves
  // a position that is out of range by the reset policy, and returns the
  // first partition error.
  Status take_response(const wire::Response& response);
};

Result<std::unique_ptr<Consumer>> Consumer::create(ConsumerOptions options) {
  SPILLWAY_RETURN_IF_ERROR(check_broker_address(options.bootstrap));
  if (options.fetch_max_bytes <= 0 || options.partition_max_bytes <= 0 ||
      options.max_poll_records == 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "fetch_max_bytes, partition_max_bytes and max_poll_records must be positive");
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  // Steady-state polls reuse it; sizing it now keeps the first polls from
  // growing it.
  impl->channel.reserve(
      std::min<std::size_t>(impl->options.max_response_bytes,
                            static_cast<std::size_t>(impl->options.fetch_max_bytes) + (64u << 10)));
  SPILLWAY_RETURN_IF_ERROR(impl->ensure_connected());
  return std::unique_ptr<Consumer>(new Consumer(std::move(impl)));
}

Consumer::Consumer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Consumer::~Consumer() {
  (void)close();
}

void RebalanceListener::on_partitions_revoked(Consumer& consumer,
                                              std::span<const TopicPartition> partitions) {
  std::vector<TopicPartitionOffset> offsets;
  for (const TopicPartition& tp : partitions) {
    Result<int64_t> at = consumer.position(tp.topic, tp.partition);
    if (at.ok() && *at >= 0) offsets.push_back({tp.topic, tp.partition, *at});
  }
  if (!offsets.empty()) (void)consumer.commit(offsets);
}

Status Consumer::subscribe(std::vector<std::string> topics,
                           std::shared_ptr<RebalanceListener> listener) {
  Impl& c = *impl_;
  if (c.options.group_id.empty()) {
    return Status(ErrorCode::kInvalidArgument, "subscribe needs a consumer group id");
  }
  if (topics.empty()) return Status(ErrorCode::kInvalidArgument, "subscribe needs topics");
  if (c.options.heartbeat_interval.count() <= 0 ||
      c.options.heartbeat_interval >= c.options.session_timeout ||
      c.options.rebalance_timeout.count() <= 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "heartbeat_interval must be positive and below session_timeout, and "
                  "rebalance_timeout positive");
  }
  if (c.group) return Status(ErrorCode::kInvalidArgument, "the consumer is already subscribed");
  if (!c.assignment.empty()) {
    return Status(ErrorCode::kInvalidArgument, "subscribe after assign: unassign first");
  }
  std::sort(topics.begin(), topics.end());
  topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
  consumer_internal::GroupSettings settings{
      .bootstrap = c.options.bootstrap,
      .connection = {.connect_timeout = c.options.connect_timeout,
                     .request_timeout = c.options.request_timeout,
                     .max_response_bytes = c.options.max_response_bytes,
                     .client_id = "spillway-consumer",
                     .security = c.options.security},
      .group_id = c.options.group_id,
      .assignor = std::string(c.options.assignor == GroupAssignor::kRange
                                  ? assignors::kRangeAssignor
                                  : assignors::kCooperativeStickyAssignor),
      .session_timeout = c.options.session_timeout,
      .rebalance_timeout = c.options.rebalance_timeout,
      .heartbeat_interval = c.options.heartbeat_interval};
  c.group =
      std::make_unique<consumer_internal::GroupMember>(std::move(settings), std::move(topics));
  c.listener = listener ? std::move(listener) : std::make_shared<RebalanceListener>();
  return Status::Ok();
}

std::vector<TopicPartition> Consumer::assignment() const {
  std::vector<TopicPartition> out;
  for (const AssignedPartition& a : impl_->assignment.partitions()) {
    out.push_back({a.topic, a.partition.value()});
  }
  return out;
}

Status Consumer::close() {
  Impl& c = *impl_;
  if (!c.group) return Status::Ok();
  c.revoke(*this, c.owned);
  Status st = c.with_reconnect([&](wire::Channel& ch) { return c.group->leave(ch); });
  c.group.reset();  // stops the heartbeat thread
  c.listener.reset();
  return st;
}

void Consumer::Impl::revoke(Consumer& self, std::vector<TopicPartition> partitions) {
  if (partitions.empty()) return;
  listener->on_partitions_revoked(self, partitions);
  for (const TopicPartition& tp : partitions) {
    assignment.remove(tp.topic, PartitionId(tp.partition));
    std::erase(owned, tp);
  }
  fetched.clear();  // indices into the assignment moved
}

Status Consumer::Impl::ensure_group(Consumer& self) {
  const bool eager = options.assignor == GroupAssignor::kRange;
  const auto partition_count = [&](std::string_view topic) -> Result<int32_t> {
    Result<TopicDescription> d = describe(topic);
    if (!d.ok()) {
      if (d.status().code() == ErrorCode::kUnknownTopic) return 0;
      return d.status();
    }
    return static_cast<int32_t>(d->partitions.size());
  };
  // Each round waits for the whole rebalance, so this does not spin; the
  // bound only stops a group that never settles from holding poll() forever.
  Status last;
  for (int round = 0; round < 10 && group->needs_rejoin(); ++round) {
    // Dropped from the group (a heartbeat or commit said so): what it
    // owned may be another member's already; the listener hears it as a
    // revoke, whose commit is refused.
    if (!group->in_generation()) revoke(self, owned);
    if (eager) revoke(self, owned);  // eager: give everything up first
    Result<std::vector<TopicPartition>> given = with_reconnect(
        [&](wire::Channel& ch) { return group->rejoin(ch, owned, partition_count); });
    if (!given.ok()) {
      last = given.status();
      const ErrorCode code = last.code();
      if (code == ErrorCode::kRebalanceInProgress || code == ErrorCode::kIllegalGeneration) {
        continue;
      }
      if (code == ErrorCode::kUnknownMember || code == ErrorCode::kFencedInstanceId ||
          code == ErrorCode::kUnknownGroup) {
        revoke(self, owned);  // lost: the group may have given them away already
        continue;
      }
      return last;
    }
    std::vector<TopicPartition> revoked, added;
    std::set_difference(owned.begin(), owned.end(), given->begin(), given->end(),
                        std::back_inserter(revoked));
    std::set_difference(given->begin(), given->end(), owned.begin(), owned.end(),
                        std::back_inserter(added));
    // Cooperative: giving something up means another member waits for it,
    // which takes a second round (needs_rejoin() is raised again).
    revoke(self, revoked);
    for (const TopicPartition& tp : added) {
      Result<int32_t> count = partition_count(tp.topic);
      if (!count.ok()) return count.status();
      const int32_t p[] = {tp.partition};
      SPILLWAY_RETURN_IF_ERROR(assignment.add(tp.topic, p, *count));
    }
    owned = *given;
    fetched.clear();
    fetched.reserve(assignment.partitions().size());
    if (!added.empty()) listener->on_partitions_assigned(self, added);
    if (!eager && !revoked.empty()) group->request_rejoin();
  }
  if (!group->needs_rejoin()) return Status::Ok();
  return last.ok() ? Status(ErrorCode::kRebalanceInProgress, "the group did not settle") : last;
}

Status Consumer::assign(std::string_view topic, std::span<const int32_t> partitions) {
  Impl& c = *impl_;
  if (c.group) {
    return Status(ErrorCode::kInvalidArgument, "a subscribed consumer's group assigns partitions");
  }
  Result<TopicDescription> d = c.describe(topic);
  if (!d.ok()) return d.status();
  SPILLWAY_RETURN_IF_ERROR(
      c.assignment.add(topic, partitions, static_cast<int32_t>(d->partitions.size())));
  c.fetched.reserve(c.assignment.partitions().size());
  c.fetched.clear();
  return Status::Ok();
}

void Consumer::unassign() {
  impl_->assignment.clear();
  impl_->fetched.clear();
}

Status Consumer::Impl::seek(std::string_view topic, int32_t partition, Position position) {
  Result<AssignedPartition*> a = assignment.get(topic, PartitionId(partition));
  if (!a.ok()) return a.status();
  (*a)->position = position;
  fetched.clear();  // refetched from the positions
  return Status::Ok();
}

Status Consumer::seek(std::string_view topic, int32_t partition, int64_t offset) {
  if (Result<AssignedPartition*> a = impl_->assignment.get(topic, PartitionId(partition));
      !a.ok()) {
    return a.status();
  }
  if (offset < 0) return Status(ErrorCode::kInvalidArgument, "offset must not be negative");
  return impl_->seek(topic, partition, Position::at(Offset(offset)));
}

Status Consumer::seek_to_beginning(std::string_view topic, int32_t partition) {
  return impl_->seek(topic, partition, Position::earliest());
}

Status Consumer::seek_to_end(std::string_view topic, int32_t partition) {
  return impl_->seek(topic, partition, Position::latest());
}

Result<int64_t> Consumer::position(std::string_view topic, int32_t partition) const {
  Result<AssignedPartition*> a = impl_->assignment.get(topic, PartitionId(partition));
  if (!a.ok()) return a.status();
  return (*a)->position.offset().value();  // -1 (kNoOffset) while unresolved
}

Status Consumer::Impl::resolve_positions() {
  Status st;
  assignment.for_each_topic([&](std::string_view topic, std::span<AssignedPartition> parts) {
    if (!st.ok()) return;
    const auto resolved = [](const AssignedPartition& a) { return a.position.resolved(); };
    if (std::all_of(parts.begin(), parts.end(), resolved)) return;
    if (!options.group_id.empty()) {
      st = resolve_committed(topic, parts);
      if (!st.ok()) return;
    }
    if (std::all_of(parts.begin(), parts.end(), resolved)) {
      return;
    }
    Result<TopicDescription> d = describe(topic);
    if (!d.ok()) {
      st = d.status();
      return;
    }
    for (AssignedPartition& a : parts) {
      if (a.position.resolved()) continue;
      const auto part = static_cast<std::size_t>(a.partition.value());
      if (part >= d->partitions.size()) {
        st = Status(ErrorCode::kUnknownPartition, std::string(topic) + " has no partition " +
                                                      std::to_string(a.partition.value()));
        return;
      }
      const bool earliest = a.position.kind() == Position::Kind::kEarliest ||
                            (a.position.kind() == Position::Kind::kCommitted &&
                             options.reset == OffsetReset::kEarliest);
      a.position = Position::at(Offset(earliest ? d->partitions[part].log_start_offset
                                                : d->partitions[part].high_watermark));
    }
  });
  return st;
}

// The group's committed offsets for the partitions of `topic` waiting for
// one; a partition with none committed stays Position::committed().
Status Consumer::Impl::resolve_committed(std::string_view topic,
                                         std::span<AssignedPartition> partitions) {
  std::vector<PartitionId> wanted;
  for (const AssignedPartition& a : partitions) {
    if (a.position == Position::committed()) wanted.push_back(a.partition);
  }
  if (wanted.empty()) return Status::Ok();
  Result<std::vector<wire::CommittedOffset>> committed = with_reconnect(
      [&](wire::Channel& c) { return wire::fetch_committed(c, options.group_id, topic, wanted); });
  if (!committed.ok()) return committed.status();
  Status error;
  for (const wire::CommittedOffset& o : *committed) {
    if (!o.error.ok()) {
      if (error.ok()) error = o.error;
      continue;
    }
    AssignedPartition* a = assignment.find(topic, o.partition);
    if (a && a->position == Position::committed() && o.offset != kNoOffset) {
      a->position = Position::at(o.offset);
    }
  }
  return error;
}

Result<int32_t> Consumer::Impl::send_fetch(std::chrono::milliseconds wait) {
  fetch_topics.clear();
  fetch_partitions.clear();
  for (const AssignedPartition& a : assignment.partitions()) {
    fetch_partitions.push_back({.partition = a.partition.value(),
                                .fetch_offset = a.position.offset().value(),
                                .partition_max_bytes = options.partition_max_bytes});
  }
  // One entry per topic, viewing its run of fetch_partitions (the
  // assignment is sorted by topic).
  std::size_t first = 0;
  assignment.for_each_topic([&](std::string_view topic, std::span<AssignedPartition> parts) {
    fetch_topics.push_back({.name = topic,
                            .partitions = std::span<const messages::FetchPartitionRequest>(
                                fetch_partitions.data() + first, parts.size())});
    first += parts.size();
  });
  messages::FetchRequest request;
  request.max_wait_ms = static_cast<int32_t>(wait.count());
  request.min_bytes = 1;
  request.max_bytes = options.fetch_max_bytes;
  request.topics = fetch_topics;

  WriteBuffer out(request_scratch);
  const int32_t correlation_id = channel.next_correlation_id();
  SPILLWAY_RETURN_IF_ERROR(wire::write_frame(
      out, frame::ApiKey::kFetch, messages::kFetchVersion, correlation_id,
      [&](WriteBuffer& body) { return messages::encode_fetch_request(request, body); }));
  SPILLWAY_RETURN_IF_ERROR(channel.send(out));
  return correlation_id;
}

Result<wire::Response> Consumer::Impl::read_fetch(int32_t correlation_id,
                                                  std::chrono::milliseconds wait) {
  Result<wire::Response> response = channel.read_response(options.request_timeout + wait);
  if (response.ok() && response->correlation_id != correlation_id) {
    channel.close();
    return Status(ErrorCode::kCorruptMessage,
                  channel.address() + ": fetch response correlation id " +
                      std::to_string(response->correlation_id) + " does not match request " +
                      std::to_string(correlation_id));
  }
  return response;
}

Status Consumer::Impl::take_response(const wire::Response& response) {
  if (response.error != ErrorCode::kOk) {
    return frame::decode_error_body(response.error, response.body);
  }
  Result<messages::FetchResponse> decoded = messages::decode_fetch_response(response.body);
  if (!decoded.ok()) return decoded.status();
  Status error;
  for (const messages::FetchTopicResult& t : decoded->topics) {
    for (const messages::FetchPartitionResult& r : t.results) {
      AssignedPartition* a = assignment.find(t.name, PartitionId(r.partition));
      if (!a) continue;
      if (r.error_code == ErrorCode::kOffsetOutOfRange) {
        // Restart inside the valid range, per the reset policy.
        a->position = Position::at(Offset(
            options.reset == OffsetReset::kEarliest ? r.log_start_offset : r.high_watermark));
        continue;
      }
      if (r.error_code != ErrorCode::kOk) {
        if (error.ok()) {
          error = Status(r.error_code, t.name.empty() ? std::string(r.error_message)
                                                      : std::string(t.name) + "/" +
                                                            std::to_string(r.partition) + ": " +
                                                            std::string(r.error_message));
        }
        continue;
      }
      if (!r.records.empty()) {
        fetched.add(static_cast<std::size_t>(a - assignment.partitions().data()), r.records);
      }
    }
  }
  return error;
}

Result<ConsumerRecords> Consumer::poll(std::chrono::milliseconds timeout) {
  Impl& c = *impl_;
  c.fetched.start_poll();
  if (c.group) {
    SPILLWAY_RETURN_IF_ERROR(c.ensure_group(*this));
    if (c.assignment.empty()) {
      c.group->wait_for_rejoin(timeout);
      return c.fetched.records();
    }
  }
  if (c.assignment.empty()) {
    return Status(ErrorCode::kInvalidArgument, "no partition is assigned");
  }
  const Clock::time_point deadline = Clock::now() + timeout;
  bool reconnected = false;
  for (;;) {
    if (!c.fetched.empty()) {
      SPILLWAY_RETURN_IF_ERROR(c.fetched.take(c.assignment));
      if (!c.fetched.records().empty()) return c.fetched.records();
      if (!c.fetched.empty()) continue;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    SPILLWAY_RETURN_IF_ERROR(c.resolve_positions());
    SPILLWAY_RETURN_IF_ERROR(c.ensure_connected());
    const auto wait = std::clamp(left, std::chrono::milliseconds(0), c.options.fetch_max_wait);
    Result<int32_t> sent = c.send_fetch(wait);
    Result<wire::Response> response =
        sent.ok() ? c.read_fetch(*sent, wait) : Result<wire::Response>(sent.status());
    if (!response.ok()) {
      // A connection the broker closed while we were not looking (idle
      // timeout, restart) gets one fresh attempt within this poll.
      if (response.status().code() != ErrorCode::kNotConnected || reconnected) {
        return response.status();
      }
      reconnected = true;
      c.channel.close();
      continue;
    }
    SPILLWAY_RETURN_IF_ERROR(c.take_response(*response));
    if (c.fetched.empty() && Clock::now() >= deadline) return c.fetched.records();
    // The group is rebalancing: let the next poll() rejoin now.
    if (c.fetched.empty() && c.group && c.group->needs_rejoin()) return c.fetched.records();
  }
}

Status Consumer::commit() {
  if (impl_->options.group_id.empty()) {
    return Status(ErrorCode::kInvalidArgument, "commit needs a consumer group id");
  }
  std::vector<TopicPartitionOffset> offsets;
  for (const AssignedPartition& a : impl_->assignment.partitions()) {
    if (a.position.resolved()) {
      offsets.push_back({.topic = a.topic,
                         .partition = a.partition.value(),
                         .offset = a.position.offset().value()});
    }
  }
  if (offsets.empty()) return Status::Ok();
  return commit(offsets);
}

Status Consumer::commit(std::span<const TopicPartitionOffset> offsets) {
  Impl& c = *impl_;
  if (c.options.group_id.empty()) {
    return Status(ErrorCode::kInvalidArgument, "commit needs a consumer group id");
  }
  if (!c.group) {
    // assign(): a "simple" commit, which the broker refuses while the
    // group has members.
    return c.with_reconnect(
        [&](wire::Channel& ch) { return wire::commit_offsets(ch, c.options.group_id, offsets); });
  }
  // subscribe(): the member's commit, fenced by the coordinator. Outside a
  // generation (joining, or dropped from the group) there is nothing this
  // member may commit; like Kafka's consumer it sends no simple commit then.
  if (!c.group->in_generation()) {
    return Status(ErrorCode::kRebalanceInProgress,
                  "the consumer is (re)joining group " + c.options.group_id +
                      "; it commits again once it has its partitions");
  }
  const std::string member = c.group->member_id();
  const int32_t generation = c.group->generation();
  Status st = c.with_reconnect([&](wire::Channel& ch) {
    return wire::commit_offsets(ch, c.options.group_id, offsets,
                                wire::CommitMember{.member_id = member, .generation = generation});
  });
  // Fenced: the partitions may belong to another member now; the next
  // poll() rejoins (and revokes them first if this member was dropped).
  if (!st.ok()) c.group->refused(member, generation, st.code());
  return st;
}

Result<int64_t> Consumer::committed(std::string_view topic, int32_t partition) {
  Impl& c = *impl_;
  if (c.options.group_id.empty()) {
    return Status(ErrorCode::kInvalidArgument, "committed offsets need a consumer group id");
  }
  const PartitionId parts[] = {PartitionId(partition)};
  Result<std::vector<wire::CommittedOffset>> r = c.with_reconnect([&](wire::Channel& ch) {
    return wire::fetch_committed(ch, c.options.group_id, topic, parts);
  });
  if (!r.ok()) return r.status();
  Offset offset = kNoOffset;
  for (const wire::CommittedOffset& o : *r) {
    SPILLWAY_RETURN_IF_ERROR(o.error);
    if (o.partition == parts[0]) offset = o.offset;
  }
  return offset.value();
}

Result<TopicDescription> Consumer::describe(std::string_view topic) {
  return impl_->describe(topic);
}

}  // namespace spillway
