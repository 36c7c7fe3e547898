// Consumer: the control calls (Metadata, FetchOffsets, CommitOffsets or,
// subscribed, CommitMemberOffsets, DescribeCluster) on the control Channel,
// to the first bootstrap address that answers, and Fetch long polls over
// connections of their own (FetchLinks), one Fetch in flight on each: to
// the broker the control channel talks to when it stands alone, or in a
// cluster (DescribeCluster answers; cluster_routes.h) to each leader of
// assigned partitions; a leader that stops answering or says it no longer
// leads makes the consumer ask for the routes again. As soon as a Fetch's
// answer is read, the link's next Fetch goes out, from past what that answer
// brought (fetching ahead), so the broker gathers, or waits for, the next
// records while these are checked and handed out; commits never queue
// behind it. It composes
//   Assignment      (consumer_assignment.h)  assigned partitions, positions
//   FetchedBatches  (fetched_batches.h)      fetched bytes -> checked records
// and the one-round-trip lookups of metadata.h and group_offsets.h. Fetch
// responses are read into the channel's reused buffer, which the returned
// records point into; control calls read their answers into memory of their
// own, so committing never invalidates records already handed out.
#include "spillway/consumer.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "assignors/cooperative_sticky_assignor.h"
#include "assignors/range_assignor.h"
#include "channel.h"
#include "cluster_routes.h"
#include "consumer_assignment.h"
#include "fetched_batches.h"
#include "group_member.h"
#include "group_offsets.h"
#include "metadata.h"
#include "spillway/common/messages/fetch.h"
#include "spillway/common/messages/replication.h"

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
  // Cluster routing: the leaders of the partitions (asked when unknown, and
  // again at routes_at after a leader failed or moved), and one fetch
  // connection per leader.
  struct FetchLink {
    int32_t broker = wire::kNoLeader;
    std::string address;
    wire::Channel channel;
    bool wanted = false;     // leads an assigned partition
    bool in_flight = false;  // a Fetch is out
    int32_t correlation_id = 0;
    uint64_t epoch = 0;  // positions_epoch when it was sent
    std::chrono::milliseconds wait{0};
    // Unanswered by then, the Fetch is lost: its long poll plus the request
    // timeout after it was sent.
    Clock::time_point lost_at{};
    // (assigned partition index, fetch offset) of each partition it asked
    // for: its answer is read only if these are still the positions.
    std::vector<std::pair<std::size_t, int64_t>> asked;
  };
  std::vector<std::unique_ptr<FetchLink>> links;
  std::vector<pollfd> link_fds;  // reused by fetch_from_leaders()
  std::vector<FetchLink*> links_out;
  wire::ClusterRoutes routes;
  bool routes_known = false;
  bool routes_due = false;
  Clock::time_point routes_at{};
  // Bumped whenever what was fetched is dropped (seek, assignment change):
  // a Fetch sent before is dropped with its link.
  uint64_t positions_epoch = 0;
  // Per assigned partition, where a Fetch sent ahead starts: past the whole
  // batches fetched and not yet handed out, else the position. Reused.
  std::vector<int64_t> ahead_offsets;
  // Per assigned partition, the high watermark the last answer reported
  // (-1: not in it, or an error). Reused.
  std::vector<int64_t> answered_hw;

  ConnectionOptions connection_options() const {
    return {.connect_timeout = options.connect_timeout,
            .request_timeout = options.request_timeout,
            .max_response_bytes = options.max_response_bytes,
            .client_id = "spillway-consumer",
            .security = options.security};
  }

  // The control channel, to the first bootstrap address that answers.
  Status ensure_connected() {
    if (channel.is_open()) return Status::Ok();
    Status st;
    for (const std::string& address : wire::split_bootstrap(options.bootstrap)) {
      st = channel.connect(address, connection_options());
      if (st.ok()) return st;
    }
    return st;
  }

  // What was fetched is stale: refetched from the positions.
  void refetch() {
    fetched.clear();
    ++positions_epoch;
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
  // Sends one Fetch on `ch` for every assigned partition led by `leader`
  // (every one for wire::kBootstrapBroker), long-polling up to `wait`, from
  // the positions or, `ahead`, from ahead_offsets; notes each partition's
  // (index, offset) in `asked`. Returns its correlation id.
  Result<int32_t> send_fetch(wire::Channel& ch, std::chrono::milliseconds wait, int32_t leader,
                             bool ahead, std::vector<std::pair<std::size_t, int64_t>>& asked);
  // Asks the control channel for the routes (DescribeCluster).
  Status refresh_routes();
  // The routes should be asked again (soon, not at once: a failover takes
  // a moment).
  void want_routes() {
    if (!routes_due) routes_at = Clock::now() + std::chrono::milliseconds(100);
    routes_due = true;
  }
  // Cluster: a Fetch to each leader of assigned partitions that has none
  // out, then the first answer into `fetched`. A failed link or a
  // partition that moved is not an error: the routes are asked again.
  // Fetches sent by an earlier poll are waited for until `deadline` only.
  Status fetch_from_leaders(std::chrono::milliseconds wait, Clock::time_point deadline);
  // Standalone: the answer to the Fetch on the broker's link, sending one
  // first (long-polling up to `wait`) when none is out, into `fetched`.
  // False when `deadline` passed first while a Fetch that an earlier poll
  // sent ahead is out: it stays out for the next poll.
  Result<bool> fetch_from_broker(std::chrono::milliseconds wait, Clock::time_point deadline);
  // Right after `l`'s answer was taken, while it left some partition
  // behind its high watermark: its next Fetch, long-polling up to
  // fetch_max_wait, from past what was fetched. The answer waits in the
  // socket until everything fetched is handed out (it is read into the
  // buffer those records point into, by a later poll()). A failure closes
  // the link, for the next poll() to deal with. Caught up, the next Fetch
  // would only wait at the broker, so the next poll() sends it: the
  // records are handed out without a send before them (a system call that
  // on loopback runs the broker's receive and wakes it, tens of µs on a VM).
  void fetch_ahead(FetchLink& l);
  // Drops the Fetch out on `l` unless it was sent since the last refetch()
  // and asked for the partitions' positions (a Fetch sent ahead asked from
  // past what was fetched; once that is handed out the two agree).
  void drop_if_stale(FetchLink& l);
  FetchLink& link_to(int32_t broker, const std::string& address);
  // Sends a Fetch on `l` for the partitions it leads (connecting first if
  // it is closed), long-polling up to `wait`, from the positions or,
  // `ahead`, from ahead_offsets. A failure closes it.
  Status send_on(FetchLink& l, std::chrono::milliseconds wait, bool ahead = false);
  // A link in `out` whose answer can be read, waiting until `until`;
  // nullptr if none by then.
  FetchLink* await_answer(std::span<FetchLink* const> out, Clock::time_point until);
  // Closes `l`, and with it the Fetch out on it: one sent for positions
  // that changed since may long-poll, so it is not waited for.
  static void drop(FetchLink& l) {
    l.channel.close();
    l.in_flight = false;
  }
  // Reads the answer to the Fetch `correlation_id` (within the request
  // timeout plus the long poll's `wait`).
  Result<wire::Response> read_fetch(wire::Channel& ch, int32_t correlation_id,
                                    std::chrono::milliseconds wait);
  // Hands each partition's batches in a Fetch response to `fetched`, moves
  // a position that is out of range by the reset policy, and returns the
  // first partition error.
  Status take_response(const wire::Response& response);
};

Result<std::unique_ptr<Consumer>> Consumer::create(ConsumerOptions options) {
  SPILLWAY_RETURN_IF_ERROR(check_bootstrap(options.bootstrap));
  if (options.fetch_max_bytes <= 0 || options.partition_max_bytes <= 0 ||
      options.max_poll_records == 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "fetch_max_bytes, partition_max_bytes and max_poll_records must be positive");
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  // The control channel reads no Fetch answers (its calls read into memory
  // of their own), so its reused buffer is not sized for them; each
  // FetchLink's is (link_to).
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
  // The group's coordinator is the broker the control channel talks to; the
  // heartbeats go there too.
  SPILLWAY_RETURN_IF_ERROR(c.ensure_connected());
  consumer_internal::GroupSettings settings{
      .bootstrap = c.channel.address(),
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
  refetch();  // indices into the assignment moved
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
    refetch();
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
  c.refetch();
  return Status::Ok();
}

void Consumer::unassign() {
  impl_->assignment.clear();
  impl_->refetch();
}

Status Consumer::Impl::seek(std::string_view topic, int32_t partition, Position position) {
  Result<AssignedPartition*> a = assignment.get(topic, PartitionId(partition));
  if (!a.ok()) return a.status();
  (*a)->position = position;
  refetch();
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

Result<int32_t> Consumer::Impl::send_fetch(wire::Channel& ch, std::chrono::milliseconds wait,
                                           int32_t leader, bool ahead,
                                           std::vector<std::pair<std::size_t, int64_t>>& asked) {
  fetch_topics.clear();
  fetch_partitions.clear();
  asked.clear();
  const AssignedPartition* const base = assignment.partitions().data();
  // One entry per topic, viewing its run of fetch_partitions (the
  // assignment is sorted by topic).
  assignment.for_each_topic([&](std::string_view topic, std::span<AssignedPartition> parts) {
    const std::size_t first = fetch_partitions.size();
    for (const AssignedPartition& a : parts) {
      if (leader != wire::kBootstrapBroker && routes.leader(topic, a.partition.value()) != leader) {
        continue;
      }
      const auto index = static_cast<std::size_t>(&a - base);
      const int64_t offset = ahead ? ahead_offsets[index] : a.position.offset().value();
      asked.emplace_back(index, offset);
      fetch_partitions.push_back({.partition = a.partition.value(),
                                  .fetch_offset = offset,
                                  .partition_max_bytes = options.partition_max_bytes});
    }
    if (fetch_partitions.size() == first) return;
    fetch_topics.push_back({.name = topic,
                            .partitions = std::span<const messages::FetchPartitionRequest>(
                                fetch_partitions.data() + first, fetch_partitions.size() - first)});
  });
  messages::FetchRequest request;
  request.max_wait_ms = static_cast<int32_t>(wait.count());
  request.min_bytes = 1;
  request.max_bytes = options.fetch_max_bytes;
  request.topics = fetch_topics;

  WriteBuffer out(request_scratch);
  const int32_t correlation_id = ch.next_correlation_id();
  SPILLWAY_RETURN_IF_ERROR(wire::write_frame(
      out, frame::ApiKey::kFetch, messages::kFetchVersion, correlation_id,
      [&](WriteBuffer& body) { return messages::encode_fetch_request(request, body); }));
  SPILLWAY_RETURN_IF_ERROR(ch.send(out));
  return correlation_id;
}

Status Consumer::Impl::refresh_routes() {
  Result<std::vector<std::byte>> body = with_reconnect([&](wire::Channel& ch) {
    return ch.call(frame::ApiKey::kDescribeCluster, messages::kDescribeClusterVersion,
                   [](WriteBuffer& out) { return wire::write_describe_cluster_request(out); });
  });
  if (!body.ok() && (body.status().code() == ErrorCode::kNotConnected ||
                     body.status().code() == ErrorCode::kTimeout)) {
    if (!routes_known) return body.status();
    want_routes();  // the leaders known so far are still tried
    return Status::Ok();
  }
  Result<wire::ClusterRoutes> r = wire::routes_from_answer(
      body.ok() ? Status::Ok() : body.status(),
      body.ok() ? std::span<const std::byte>(*body) : std::span<const std::byte>());
  if (!r.ok()) {
    want_routes();
    return Status::Ok();  // the routes known stay; asked again later
  }
  routes = std::move(*r);
  routes_known = true;
  routes_due = false;
  return Status::Ok();
}

Consumer::Impl::FetchLink& Consumer::Impl::link_to(int32_t broker, const std::string& address) {
  for (std::unique_ptr<FetchLink>& l : links) {
    if (l->broker != broker) continue;
    if (l->address != address) {
      // The broker came back elsewhere: what was in flight is lost with it.
      l->channel.close();
      l->in_flight = false;
      l->address = address;
    }
    return *l;
  }
  links.push_back(std::make_unique<FetchLink>());
  links.back()->broker = broker;
  links.back()->address = address;
  // Fetch answers are read into it; sized once, as the control channel's.
  links.back()->channel.reserve(std::min<std::size_t>(
      options.max_response_bytes, static_cast<std::size_t>(options.fetch_max_bytes) + (64u << 10)));
  return *links.back();
}

Status Consumer::Impl::send_on(FetchLink& l, std::chrono::milliseconds wait, bool ahead) {
  if (!l.channel.is_open())
    SPILLWAY_RETURN_IF_ERROR(l.channel.connect(l.address, connection_options()));
  Result<int32_t> sent = send_fetch(l.channel, wait, l.broker, ahead, l.asked);
  if (!sent.ok()) {
    l.channel.close();
    return sent.status();
  }
  l.in_flight = true;
  l.correlation_id = *sent;
  l.epoch = positions_epoch;
  l.wait = wait;
  l.lost_at = Clock::now() + wait + options.request_timeout;
  return Status::Ok();
}

Consumer::Impl::FetchLink* Consumer::Impl::await_answer(std::span<FetchLink* const> out,
                                                        Clock::time_point until) {
  for (FetchLink* l : out) {
    if (l->channel.has_buffered_input()) return l;
  }
  std::vector<pollfd>& fds = link_fds;
  fds.clear();
  for (FetchLink* l : out) fds.push_back({l->channel.native_handle(), POLLIN, 0});
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    const int n =
        ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (n > 0) break;
    if (n == 0 || errno != EINTR) return nullptr;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0) return out[i];
  }
  return nullptr;
}

void Consumer::Impl::fetch_ahead(FetchLink& l) {
  if (!l.wanted || !l.channel.is_open()) return;  // unwanted: leads nothing assigned now
  ahead_offsets.resize(assignment.partitions().size());
  for (std::size_t i = 0; i < ahead_offsets.size(); ++i) {
    ahead_offsets[i] = assignment.partitions()[i].position.offset().value();
  }
  fetched.for_each_end([&](std::size_t index, Offset end) {
    ahead_offsets[index] = std::max(ahead_offsets[index], end.value());
  });
  bool behind = false;
  for (std::size_t i = 0; i < ahead_offsets.size() && i < answered_hw.size(); ++i) {
    behind = behind || answered_hw[i] > ahead_offsets[i];
  }
  if (!behind) return;
  (void)send_on(l, options.fetch_max_wait, /*ahead=*/true);
}

void Consumer::Impl::drop_if_stale(FetchLink& l) {
  if (!l.in_flight) return;
  if (l.epoch != positions_epoch) {
    drop(l);
    return;
  }
  const std::span<const AssignedPartition> parts = assignment.partitions();
  for (const auto& [index, offset] : l.asked) {
    if (index >= parts.size() || parts[index].position.offset().value() != offset) {
      drop(l);
      return;
    }
  }
}

Result<bool> Consumer::Impl::fetch_from_broker(std::chrono::milliseconds wait,
                                               Clock::time_point deadline) {
  FetchLink& l = link_to(wire::kBootstrapBroker, channel.address());
  for (std::unique_ptr<FetchLink>& other : links) other->wanted = other.get() == &l;
  drop_if_stale(l);
  if (l.in_flight) {
    // Sent ahead by an earlier poll: waited for until this poll's deadline.
    FetchLink* const out[] = {&l};
    if (!await_answer(out, std::min(deadline, l.lost_at))) {
      if (Clock::now() < l.lost_at) return false;
      drop(l);
      return Status(ErrorCode::kTimeout, l.address + ": no answer to a Fetch within " +
                                             std::to_string(options.request_timeout.count()) +
                                             " ms after its long poll");
    }
  } else {
    SPILLWAY_RETURN_IF_ERROR(send_on(l, wait));
  }
  Result<wire::Response> response = read_fetch(l.channel, l.correlation_id, l.wait);
  l.in_flight = false;
  if (!response.ok()) return response.status();  // the channel is closed
  SPILLWAY_RETURN_IF_ERROR(take_response(*response));
  fetch_ahead(l);
  return true;
}

Status Consumer::Impl::fetch_from_leaders(std::chrono::milliseconds wait,
                                          Clock::time_point deadline) {
  for (std::unique_ptr<FetchLink>& l : links) l->wanted = false;
  for (const AssignedPartition& a : assignment.partitions()) {
    const int32_t leader = routes.leader(a.topic, a.partition.value());
    if (leader < 0) {
      want_routes();  // offline, or a topic the routes do not know yet
      continue;
    }
    link_to(leader, *routes.address(leader)).wanted = true;
  }
  // A Fetch to every leader with none out. Each link's answer lands in its
  // own channel's buffer, so records handed out from one stay valid while
  // another is read.
  bool sent_now = false;
  for (std::unique_ptr<FetchLink>& l : links) {
    drop_if_stale(*l);
    if (!l->wanted || l->in_flight) continue;
    if (!send_on(*l, wait).ok()) {
      want_routes();  // the leader may be gone
      continue;
    }
    sent_now = true;
  }
  // The first answer: waited for up to a Fetch's limit when one went out
  // now, as before fetching ahead; only until the deadline otherwise.
  std::vector<FetchLink*>& out = links_out;
  out.clear();
  Clock::time_point until = Clock::time_point::max();
  for (std::unique_ptr<FetchLink>& l : links) {
    if (!l->in_flight) continue;
    out.push_back(l.get());
    until = std::min(until, l->lost_at);
  }
  if (out.empty()) {
    // No leader to fetch from now: wait a little for new routes.
    std::this_thread::sleep_for(std::min(wait, std::chrono::milliseconds(100)));
    return Status::Ok();
  }
  if (!sent_now) until = std::min(until, deadline);
  FetchLink* ready = out.size() == 1 && sent_now ? out.front() : await_answer(out, until);
  if (!ready) {
    // Nothing within a Fetch's limit: those links are lost.
    for (FetchLink* l : out) {
      if (Clock::now() >= l->lost_at) {
        drop(*l);
        want_routes();
      }
    }
    return Status::Ok();
  }
  Result<wire::Response> response = read_fetch(ready->channel, ready->correlation_id, ready->wait);
  ready->in_flight = false;
  if (!response.ok()) {
    ready->channel.close();
    want_routes();
    return Status::Ok();
  }
  // (A Fetch for old positions was dropped above, before anything waited.)
  SPILLWAY_RETURN_IF_ERROR(take_response(*response));
  fetch_ahead(*ready);
  return Status::Ok();
}

Result<wire::Response> Consumer::Impl::read_fetch(wire::Channel& ch, int32_t correlation_id,
                                                  std::chrono::milliseconds wait) {
  Result<wire::Response> response = ch.read_response(options.request_timeout + wait);
  if (response.ok() && response->correlation_id != correlation_id) {
    ch.close();
    return Status(ErrorCode::kCorruptMessage, ch.address() + ": fetch response correlation id " +
                                                  std::to_string(response->correlation_id) +
                                                  " does not match request " +
                                                  std::to_string(correlation_id));
  }
  return response;
}

Status Consumer::Impl::take_response(const wire::Response& response) {
  answered_hw.assign(assignment.partitions().size(), -1);
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
      if (routes.cluster() && wire::needs_new_routes(r.error_code)) {
        want_routes();  // it moved: fetched from its new leader next time
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
      const auto index = static_cast<std::size_t>(a - assignment.partitions().data());
      answered_hw[index] = r.high_watermark;
      if (!r.records.empty()) fetched.add(index, r.records);
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
    if (!c.routes_known || (c.routes_due && Clock::now() >= c.routes_at)) {
      SPILLWAY_RETURN_IF_ERROR(c.refresh_routes());
    }
    const auto wait = std::clamp(left, std::chrono::milliseconds(0), c.options.fetch_max_wait);
    if (c.routes.cluster()) {
      SPILLWAY_RETURN_IF_ERROR(c.fetch_from_leaders(wait, deadline));
      if (c.fetched.empty() && Clock::now() >= deadline) return c.fetched.records();
      if (c.fetched.empty() && c.group && c.group->needs_rejoin()) return c.fetched.records();
      continue;
    }
    Result<bool> answered = c.fetch_from_broker(wait, deadline);
    if (!answered.ok()) {
      // A connection the broker closed while we were not looking (idle
      // timeout, restart) gets one fresh attempt within this poll.
      if (answered.status().code() != ErrorCode::kNotConnected || reconnected) {
        return answered.status();
      }
      reconnected = true;
      // The control channel may be as stale; ensure_connected() then tries
      // the bootstrap addresses in turn, and the link follows it.
      c.channel.close();
      continue;
    }
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
