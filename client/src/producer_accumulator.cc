// The producer's accumulator: send() on the caller's thread validates a
// record, picks its partition, and stages it as one entry
// (producer_staging.h) in the open batch of that partition, sealing the batch
// when full. Batches come from a recycled pool, so the steady state
// allocates nothing.
#include <chrono>
#include <string>
#include <thread>

#include "producer_impl.h"
#include "producer_staging.h"
#include "spillway/common/key_partitioner.h"

namespace spillway {

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

using producer_internal::on_batch_closed;

Producer::Impl::Batch* Producer::Impl::new_batch(TopicState* t, int32_t partition,
                                                 Clock::time_point now) {
  Batch* b = free_batches;
  if (b) {
    free_batches = b->next;
  } else {
    b = new Batch;
    all_batches.push_back(b);
  }
  b->next = nullptr;
  b->topic = t;
  b->partition = partition;
  b->count = 0;
  b->bytes = 0;
  b->created = now;
  b->deadline = now + options.delivery_timeout;
  b->retry_at = now;
  b->attempts = 0;
  b->sealed = false;
  b->base_offset = -1;
  b->error = Status::Ok();
  return b;
}

void Producer::Impl::free_batch(Batch* b) {
  b->staging.release();
  b->next = free_batches;
  free_batches = b;
}

void Producer::Impl::fail_now(std::unique_lock<std::mutex>& lk, const Status& st,
                              std::string_view topic, int32_t partition, DeliveryCallback cb) {
  ++accepted;
  note_failure(st, 1);
  lk.unlock();
  if (cb.fn) cb.fn(cb.context, st, RecordMetadata{topic, partition, -1, 0});
  lk.lock();
  ++completed;
  cv.notify_all();
}

void Producer::Impl::send(std::string_view topic, std::span<const std::byte> key,
                          std::span<const std::byte> value, std::span<const Header> headers,
                          DeliveryCallback cb, int32_t partition) {
  const std::size_t size = producer_internal::entry_size(key, value, headers);
  std::unique_lock lk(mu);
  if (closed) {
    fail_now(lk, Status(ErrorCode::kShuttingDown, "the producer is closed"), topic, partition, cb);
    return;
  }
  if (size > kMaxRecordBytes || headers.size() > kMaxHeaders) {
    fail_now(lk,
             Status(ErrorCode::kBatchTooLarge, "record of " + std::to_string(size) + " bytes or " +
                                                   std::to_string(headers.size()) +
                                                   " headers is above the producer limit"),
             topic, partition, cb);
    return;
  }
  if (topic.size() > UINT16_MAX) {
    // A wire string: it could not be encoded into a Metadata or Produce request.
    fail_now(lk, Status(ErrorCode::kInvalidArgument, "topic name above 65535 bytes"), topic,
             partition, cb);
    return;
  }
  for (const Header& h : headers) {
    if (h.key.size() > UINT16_MAX) {
      fail_now(lk, Status(ErrorCode::kInvalidArgument, "header key above 65535 bytes"), topic,
               partition, cb);
      return;
    }
  }
  TopicState* t = last_topic;
  if (t == nullptr || t->name != topic) {
    auto it = topics.find(topic);
    if (it == topics.end()) {
      auto fresh = std::make_unique<TopicState>();
      fresh->name = std::string(topic);
      it = topics.emplace(fresh->name, std::move(fresh)).first;
    }
    t = last_topic = it->second.get();
  }
  if (t->partitions < 0) {
    Status st = await_partitions(lk, t);
    if (!st.ok()) {
      fail_now(lk, st, t->name, partition, cb);
      return;
    }
  }
  if (partition >= t->partitions) {
    fail_now(lk,
             Status(ErrorCode::kUnknownPartition,
                    "topic '" + t->name + "' has no partition " + std::to_string(partition)),
             t->name, partition, cb);
    return;
  }
  const bool sticky = partition < 0 && key.empty();  // placed by the sticky partitioner
  if (partition < 0) {
    partition = key.empty() ? t->sticky : KeyPartitioner::partition(key, t->partitions);
  }
  // A fenced partition fails the record at once (not after waiting for
  // buffer space, below).
  if (const Status& fenced = t->parts[static_cast<std::size_t>(partition)].fenced; !fenced.ok()) {
    fail_now(lk, fenced_error(*t, partition, fenced), t->name, partition, cb);
    return;
  }
  if (buffered > 0 && buffered + size > options.buffer_bytes &&
      std::this_thread::get_id() != io.get_id()) {
    wake();
    cv.wait_until(lk, Clock::now() + options.delivery_timeout,
                  [&] { return buffered == 0 || buffered + size <= options.buffer_bytes || stop; });
    if (stop || (buffered > 0 && buffered + size > options.buffer_bytes)) {
      const Status st(stop ? ErrorCode::kShuttingDown : ErrorCode::kResourceExhausted,
                      stop ? std::string("the producer is closed")
                           : "producer buffer (" + std::to_string(options.buffer_bytes) +
                                 " bytes) still full after the delivery timeout");
      // The records queued before this one may still be delivered; those
      // sent after it must not be (no hole), so only the fence is set.
      Status& fenced = t->parts[static_cast<std::size_t>(partition)].fenced;
      if (!stop && fenced.ok()) fenced = st;
      fail_now(lk, st, t->name, partition, cb);
      return;
    }
  }
  if (closed) {  // close() ran while this send waited above
    fail_now(lk, Status(ErrorCode::kShuttingDown, "the producer is closed"), t->name, partition,
             cb);
    return;
  }
  PartitionState& p = t->parts[static_cast<std::size_t>(partition)];
  Batch* b = p.tail;
  bool wake_io = false;
  if (b && !b->sealed && b->count > 0 && b->bytes + size > options.batch_bytes) {
    b->sealed = true;
    on_batch_closed(t, partition);
    if (sticky) partition = t->sticky;  // the record follows the sticky move
    wake_io = true;
  }
  PartitionState& q = t->parts[static_cast<std::size_t>(partition)];
  if (!q.fenced.ok()) {  // fenced while this send waited, or the sticky move landed on one
    if (wake_io) wake();
    fail_now(lk, fenced_error(*t, partition, q.fenced), t->name, partition, cb);
    return;
  }
  b = q.tail;
  if (!b || b->sealed) {
    // The steady clock is read only here, once per batch (its linger and
    // delivery deadlines); a clock read per record was a fifth of send().
    b = new_batch(t, partition, Clock::now());
    if (q.tail) {
      q.tail->next = b;
    } else {
      q.head = b;
    }
    q.tail = b;
    wake_io = true;  // a new linger deadline
  }
  std::span<std::byte> out = b->staging.reserve(size);
  if (out.size() < size) {
    if (wake_io) wake();
    const Status st(ErrorCode::kResourceExhausted, "no pooled buffer to stage a record");
    q.fenced = st;  // as above: the records before it may still go, none after it
    fail_now(lk, st, t->name, partition, cb);
    return;
  }
  producer_internal::write_entry(out.data(), size, now_ms(), cb, key, value, headers);
  b->staging.advance(size);
  ++b->count;
  b->bytes += size;
  buffered += size;
  ++accepted;
  if (b->bytes >= options.batch_bytes) {
    b->sealed = true;
    on_batch_closed(t, partition);
    wake_io = true;
  }
  lk.unlock();
  if (wake_io) wake();
}

}  // namespace spillway
