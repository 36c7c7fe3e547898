// The shared fetch core: reads on owner cores, long poll, stored batches
// copied verbatim into the response or left in their files for sendfile.
#include "fetch_core.h"

#include <algorithm>

#include "core/task_pool.h"
#include "replication/replication_throttle.h"

namespace spillway::broker {

namespace {

constexpr size_t kCopyChunk = 64 << 10;

Status copy_slice(WriteBuffer& out, const storage::FileSlice& slice) {
  uint64_t done = 0;
  while (done < slice.length) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(slice.length - done, kCopyChunk));
    std::span<std::byte> room = out.reserve(want);
    if (room.empty()) return Status(ErrorCode::kResourceExhausted, "no pooled buffer for a fetch");
    Result<size_t> n = slice.file->read_at(room.first(want), slice.position + done);
    if (!n.ok()) return n.status();
    if (*n == 0) return Status(ErrorCode::kIoError, "segment ended before the slice");
    out.advance(*n);
    done += *n;
  }
  return Status::Ok();
}

// Leaves a large slice in its file for the connection to sendfile: the
// descriptor is held (against the open-file LRU and a segment deleted
// meanwhile) until the response is written. False when the bytes must be
// copied instead (TLS, a small slice, a file without a descriptor, a
// response with all its ranges taken).
bool place_beside(const FetchCore::Part& part) {
  Exchange& exchange = *part.exchange;
  const storage::FileSlice& slice = part.slice;
  if (!exchange.sends_file_ranges() || slice.length < FetchCore::kMinSendfileBytes) return false;
  Result<std::shared_ptr<storage::File>> held = storage::hold_descriptor(slice.file);
  // A failed reopen is left to the copy, which reports it.
  if (!held.ok() || *held == nullptr) return false;
  const int fd = (*held)->native_handle();
  return exchange.add_file_range(fd, slice.position, slice.length, std::move(*held));
}

Status write_slice(const void* ctx, WriteBuffer& out) {
  const auto& part = *static_cast<const FetchCore::Part*>(ctx);
  if (place_beside(part)) return Status::Ok();
  return copy_slice(out, part.slice);
}

// A throttled part's read: at most what the throttle grants (its first
// batch still whole), or the smallest read when it grants nothing, which
// then is held back from the response.
uint64_t throttled_read_bytes(FetchCore::Part& part, uint64_t max) {
  const uint64_t granted = part.throttle->available();
  part.held = granted == 0;
  if (part.held) part.throttle->count_held();
  return std::min(max, std::max<uint64_t>(granted, 1));
}

// What the response sent under a throttle is taken from it.
void charge_throttles(const std::vector<FetchCore::Part>& parts) {
  for (const FetchCore::Part& part : parts) {
    if (part.throttle != nullptr && part.include) part.throttle->charge(part.slice.length);
  }
}

// A follower's fetch waits for the leader's log to grow, not for the high
// watermark (FetchWaiter::replica, added with the Partition's replication
// code; a template so that this compiles before and after it lands).
template <typename Waiter>
void wait_for_log(Waiter& waiter, bool replica) {
  if constexpr (requires { waiter.replica = replica; }) waiter.replica = replica;
}

}  // namespace

void FetchCore::begin(Exchange& exchange, Encode encode, int32_t max_wait_ms, int32_t min_bytes,
                      int64_t max_bytes) {
  exchange_ = &exchange;
  encode_ = encode;
  names_.clear();
  topics_.clear();
  parts_.clear();
  waited_ = false;
  expired_ = false;
  replica_ = kNoBroker;
  replica_broker_epoch_ = 0;
  bytes_before_wake_ = 0;
  max_wait_ms_ = std::max(0, max_wait_ms);
  min_bytes_ = static_cast<uint64_t>(std::max(1, min_bytes));
  max_bytes_ = std::clamp<int64_t>(max_bytes, 1, kMaxResponseBytes);
}

void FetchCore::set_replica(BrokerId replica, int64_t broker_epoch, ReplicaRead read) {
  replica_ = replica;
  replica_broker_epoch_ = broker_epoch;
  replica_read_ = read;
}

uint32_t FetchCore::add_topic(TopicRegistry& topics, std::string_view name) {
  topics_.push_back({static_cast<uint32_t>(names_.size()), static_cast<uint32_t>(name.size()),
                     topics.find_shared(name)});
  names_.append(name);
  return static_cast<uint32_t>(topics_.size() - 1);
}

std::string_view FetchCore::topic_name(uint32_t topic) const {
  return std::string_view(names_).substr(topics_[topic].name_offset, topics_[topic].name_size);
}

void FetchCore::add_partition(uint32_t topic_index, int32_t partition, int64_t fetch_offset,
                              int64_t max_bytes, int32_t current_leader_epoch) {
  Part part{.topic = topic_index,
            .partition = partition,
            .fetch_offset = fetch_offset,
            .max_bytes = std::max<int64_t>(1, max_bytes),
            .log = nullptr,
            .code = ErrorCode::kOk,
            .message = {},
            .high_watermark = -1,
            .log_start_offset = -1,
            .slice = {},
            .include = false,
            .current_leader_epoch = current_leader_epoch,
            .leader_epoch = -1,
            .exchange = exchange_};
  const Topic* topic = topics_[topic_index].topic.get();
  if (topic == nullptr) {
    part.code = ErrorCode::kUnknownTopic;
    part.message = "unknown topic " + std::string(topic_name(topic_index));
  } else if (Status usable = topic->check_partition(partition); !usable.ok()) {
    part.code = usable.code();  // an unknown partition, or the topic is offline
    part.message = std::string(usable.message());
  } else {
    const std::shared_ptr<Partition>& log = topic->partitions[static_cast<size_t>(partition)];
    // A client's KIP-320 check here; a follower's is made by replica_read.
    if (Status epoch = replica_ == kNoBroker ? log->check_client_leader_epoch(current_leader_epoch)
                                             : Status::Ok();
        !epoch.ok()) {
      part.code = epoch.code();
      part.message = std::string(epoch.message());
    } else {
      part.log = log;
    }
  }
  parts_.push_back(std::move(part));
}

void FetchCore::throttle_last_partition(replication::ReplicationThrottle* throttle) {
  if (!parts_.empty()) parts_.back().throttle = throttle;
}

void FetchCore::add_refused_partition(uint32_t topic_index, int32_t partition, ErrorCode code,
                                      std::string_view message) {
  parts_.push_back(Part{.topic = topic_index,
                        .partition = partition,
                        .fetch_offset = 0,
                        .max_bytes = 1,
                        .log = nullptr,
                        .code = code,
                        .message = std::string(message),
                        .high_watermark = -1,
                        .log_start_offset = -1,
                        .slice = {},
                        .include = false,
                        .current_leader_epoch = -1,
                        .leader_epoch = -1,
                        .exchange = exchange_});
}

wire::Records FetchCore::records(const Part& part) {
  return wire::Records::deferred(part.slice.length, &write_slice, &part);
}

void FetchCore::start() {
  read_all();
}

void FetchCore::respond() {
  Exchange& exchange = *exchange_;
  armed_.store(0, std::memory_order_release);
  if (timer_running_) {
    timer_running_ = false;
    timer_->cancel();
  }
  // The response fits the memory granted by read_all(): with none, no
  // records are sent (the consumer asks again); with some, the first slice
  // goes whole (read_all() sized it to the grant, or to its first batch).
  int64_t budget = static_cast<int64_t>(granted_);
  uint64_t included = 0;
  bool first_data = granted_ > 0;
  for (Part& part : parts_) {
    const auto length = static_cast<int64_t>(part.slice.length);
    part.include =
        part.code == ErrorCode::kOk && length > 0 && !part.held && (first_data || length <= budget);
    if (part.include) {
      first_data = false;
      budget -= length;
      included += static_cast<uint64_t>(length);
    }
  }
  const Status written = encode_(*this);
  if (written.ok() && replica_ == kNoBroker) {
    for (const Part& part : parts_) {
      if (!part.include) continue;
      Topic* topic = topics_[part.topic].topic.get();
      topic->counters.bytes_out.fetch_add(part.slice.length, std::memory_order_relaxed);
      topic->counters.messages_out.fetch_add(
          static_cast<uint64_t>(part.slice.next_offset - part.slice.first_offset),
          std::memory_order_relaxed);
    }
  }
  if (written.ok()) charge_throttles(parts_);
  for (Part& part : parts_) {
    part.slice = storage::FileSlice();  // let go of the segment file
    part.log.reset();
  }
  for (TopicRef& t : topics_) t.topic.reset();
  exchange.settle_response_bytes(std::exchange(granted_, 0), included);
  exchange.finish(written);
}

void FetchCore::on_wake(void* ctx, uint64_t token) {
  auto& core = *static_cast<FetchCore*>(ctx);
  uint64_t expected = token;
  // Only the first wake of this wait proceeds (a timer and several
  // partitions may race to it).
  if (!core.armed_.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return;
  // The waiters this wait left on partitions that did not wake it hold the
  // connection alive until those partitions see data, which an idle one
  // may never: they are dropped now. (A single partition that woke it has
  // already let go of its waiter.)
  if (core.expired_ || core.parts_.size() > 1) core.drop_waiters();
  core.read_all();
}

void FetchCore::drop_waiters() {
  for (const Part& p : parts_) {
    if (p.log == nullptr) continue;
    post_task(p.log->owner(), [owner = p.log] { owner->drop_stale_waiters(); });
  }
}

void FetchCore::on_read(void* ctx, uint32_t index, PartitionReply& reply) {
  auto& core = *static_cast<FetchCore*>(ctx);
  core.take_read(core.parts_[index], reply);
  if (--core.pending_ == 0) core.reads_done();
}

void FetchCore::take_read(Part& part, PartitionReply& reply) {
  part.high_watermark = reply.high_watermark.value();
  part.log_start_offset = reply.log_start_offset.value();
  part.leader_epoch = reply.leader_epoch.value();
  if (reply.status.ok()) {
    part.slice = std::move(reply.slice);
  } else {
    part.code = reply.status.code();
    part.message = std::string(reply.status.message());
  }
}

void FetchCore::reads_done() {
  bool error = false;
  uint64_t bytes = 0;
  for (const Part& p : parts_) {
    if (p.code != ErrorCode::kOk) error = true;
    if (!p.held) bytes += p.slice.length;  // held back by the throttle: as if none
  }
  // Answer with an error, with min_bytes, when the wait is over, or when a
  // wake brought nothing new (the broker is stopping, or a durable advance
  // showed what an earlier read already had): a fetch never spins.
  const bool no_progress = waited_ && bytes <= bytes_before_wake_;
  if (error || bytes >= min_bytes_ || expired_ || max_wait_ms_ <= 0 || no_progress) {
    respond();
    return;
  }
  bytes_before_wake_ = bytes;
  wait();
}

void FetchCore::wait() {
  // Not enough yet: long poll. Waiters on every partition, and the timer
  // (once per request). The grant goes back meanwhile; the reads after the
  // wake ask again.
  exchange_->settle_response_bytes(std::exchange(granted_, 0), 0);
  waited_ = true;
  // A token per wait, not per request: a waiter left from an earlier wait
  // of this request (on a partition that did not wake it) is then stale,
  // and dropped by the partition, instead of piling up.
  const uint64_t token = ++last_token_;
  armed_.store(token, std::memory_order_release);
  for (Part& p : parts_) {
    // Held back by the reassignment throttle: its data is there already,
    // so a waiter would wake at once; it waits for the timer (or another
    // partition's data) instead, as Kafka's throttled follower does.
    if (p.held) continue;
    FetchWaiter waiter;
    waiter.context = &exchange_->context();
    waiter.keep_alive = exchange_->keep_alive();
    waiter.armed = &armed_;
    waiter.generation = token;
    // Woken by data past what this fetch already has.
    waiter.fetch_offset = Offset(p.slice.empty() ? p.fetch_offset : p.slice.next_offset.value());
    waiter.wake = &on_wake;
    waiter.ctx = this;
    wait_for_log(waiter, replica_ != kNoBroker);
    std::shared_ptr<Partition> owner = p.log;
    post_task(p.log->owner(), [owner = std::move(owner), waiter = std::move(waiter)]() mutable {
      owner->add_waiter(std::move(waiter));
    });
  }
  if (timer_running_) return;
  if (!timer_) timer_.emplace(exchange_->executor());
  timer_running_ = true;
  timer_->expires_after(std::chrono::milliseconds(max_wait_ms_));
  const uint64_t request = exchange_->generation();
  timer_->async_wait(asio::bind_allocator(
      TaskAllocator<void>(), [keep = exchange_->keep_alive(), this, request](asio::error_code ec) {
        // Cancelled, or fired for a request answered meanwhile.
        if (ec || exchange_->generation() != request) return;
        expired_ = true;
        // Ends the current wait; while reads run (not waiting) they see
        // expired_ when they finish.
        if (const uint64_t token = armed_.load(std::memory_order_acquire); token != 0) {
          on_wake(this, token);
        }
      }));
}

void FetchCore::read_all() {
  // The response is sized to what the connection's and the broker's memory
  // budgets allow (protocol/memory_budget.h); a fetch may return fewer
  // bytes than asked, as Kafka's does.
  granted_ = exchange_->grant_response_bytes(static_cast<uint64_t>(max_bytes_));
  pending_ = 0;
  for (Part& p : parts_) {
    if (p.log != nullptr) ++pending_;
  }
  if (pending_ == 0) {
    respond();
    return;
  }
  for (uint32_t i = 0; i < parts_.size(); ++i) {
    Part& p = parts_[i];
    if (p.log == nullptr) continue;
    p.code = ErrorCode::kOk;
    p.message.clear();
    p.slice = storage::FileSlice();
    exchange_->note_partition_owner(p.log->owner());
    // With no grant the slice is not sent; read the smallest one for the
    // offsets. Otherwise the first batch comes whole even past the grant.
    auto max = std::min(static_cast<uint64_t>(std::min(p.max_bytes, max_bytes_)),
                        std::max<uint64_t>(granted_, 1));
    if (p.throttle != nullptr) max = throttled_read_bytes(p, max);
    if (replica_ == kNoBroker && p.log->owner().get_executor().running_in_this_thread()) {
      // The connection lives on the partition's core (docs/architecture.md,
      // "Connections move to their partitions' core"): read here. Woken by
      // an append, the answer then leaves before that append's own
      // acknowledgement, whose post is queued behind this wake-up, instead
      // of two posts after it (docs/performance.md, "Fetch answers before
      // acknowledgements").
      PartitionReply here = p.log->read_here(Offset(p.fetch_offset), max);
      take_read(p, here);
      --pending_;
      continue;
    }
    Reply reply;
    reply.executor = tracked_executor(exchange_->context());
    reply.keep_alive = exchange_->keep_alive();
    reply.fn = &on_read;
    reply.ctx = this;
    reply.index = i;
    std::shared_ptr<Partition> owner = p.log;
    if (replica_ != kNoBroker) {
      const replication::ReplicaReadRequest request{
          .replica = replica_,
          .broker_epoch = replica_broker_epoch_,
          .current_leader_epoch = LeaderEpoch(p.current_leader_epoch),
          .fetch_offset = Offset(p.fetch_offset),
          .max_bytes = max};
      post_task(p.log->owner(), [owner = std::move(owner), request, read = replica_read_,
                                 reply = std::move(reply)]() mutable {
        read(*owner, request, std::move(reply));
      });
      continue;
    }
    post_task(p.log->owner(),
              [owner = std::move(owner), offset = Offset(p.fetch_offset), max,
               reply = std::move(reply)]() mutable { owner->read(offset, max, std::move(reply)); });
  }
  // Reads on other cores answer later, on this context, through on_read().
  if (pending_ == 0) reads_done();
}

}  // namespace spillway::broker
