// Producer: the public facade (see spillway/producer.h) and the caller's side
// of Producer::Impl: send() validates a record, picks its partition, waits
// for the topic's partition count and for buffer space when it must, and
// stages the record in the RecordAccumulator; flush() and close() wait on
// the shared state. The I/O thread is the Sender (producer_sender.h).
#include "spillway/producer.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "producer_impl.h"
#include "producer_staging.h"
#include "spillway/common/key_partitioner.h"

namespace spillway {

using producer_internal::Placement;
using producer_internal::TopicQueues;

Producer::Impl::Impl(ProducerOptions o, int wake)
    : options(std::move(o)),
      wake_fd(wake),
      accumulator({.batch_bytes = options.batch_bytes,
                   .linger = options.linger,
                   .delivery_timeout = options.delivery_timeout}),
      sender(*this) {}

Producer::Impl::~Impl() {
  ::close(wake_fd);
}

void Producer::Impl::wake() const noexcept {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t r = ::write(wake_fd, &one, sizeof(one));
}

Result<std::unique_ptr<Producer>> Producer::create(ProducerOptions options) {
  SPILLWAY_RETURN_IF_ERROR(check_bootstrap(options.bootstrap));
  if (options.max_in_flight < 1) {
    return Status(ErrorCode::kInvalidArgument, "max_in_flight must be at least 1");
  }
  if (options.batch_bytes < 1 || options.buffer_bytes < 1 || options.retries < 0 ||
      options.linger.count() < 0 || options.delivery_timeout.count() <= 0 ||
      options.request_timeout.count() <= 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "batch_bytes, retries, linger and the timeouts must not be negative");
  }
  const int wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    return Status(ErrorCode::kResourceExhausted, std::string("eventfd: ") + std::strerror(errno));
  }
  auto impl = std::make_unique<Impl>(std::move(options), wake_fd);
  impl->io = std::thread([i = impl.get()] { i->sender.run(); });
  return std::unique_ptr<Producer>(new Producer(std::move(impl)));
}

Producer::Producer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Producer::~Producer() {
  (void)close();
}

void Producer::send(std::string_view topic, std::span<const std::byte> key,
                    std::span<const std::byte> value, std::span<const Header> headers,
                    DeliveryCallback cb, int32_t partition) {
  impl_->send(topic, key, value, headers, cb, partition);
}

std::future<Result<RecordMetadata>> Producer::send(std::string_view topic, std::string_view key,
                                                   std::string_view value, int32_t partition) {
  auto* promise = new std::promise<Result<RecordMetadata>>();
  std::future<Result<RecordMetadata>> future = promise->get_future();
  DeliveryCallback cb;
  cb.context = promise;
  cb.fn = [](void* context, const Status& st, const RecordMetadata& m) {
    auto* p = static_cast<std::promise<Result<RecordMetadata>>*>(context);
    if (st.ok()) {
      p->set_value(m);
    } else {
      p->set_value(st);
    }
    delete p;
  };
  send(topic, std::as_bytes(std::span<const char>(key.data(), key.size())),
       std::as_bytes(std::span<const char>(value.data(), value.size())), {}, cb, partition);
  return future;
}

void Producer::Impl::fail_now(std::unique_lock<std::mutex>& lk, const Status& st,
                              std::string_view topic, int32_t partition, DeliveryCallback cb) {
  ++tally.accepted;
  tally.note_failure(st);
  lk.unlock();
  if (cb.fn) {
    cb.fn(cb.context, st,
          RecordMetadata{.topic = topic, .partition = partition, .offset = kNoOffset.value()});
  }
  lk.lock();
  ++tally.completed;
  cv.notify_all();
}

Status Producer::Impl::await_partitions(std::unique_lock<std::mutex>& lk, TopicQueues& queues) {
  producer_internal::MetadataCache::Topic& m = metadata.topic(queues.name);
  if (m.partitions < 0) {
    const uint64_t answers = m.answers;
    metadata.want(m);
    wake();
    cv.wait_until(lk, Clock::now() + options.delivery_timeout,
                  [&] { return m.partitions >= 0 || m.answers != answers || stop; });
  }
  if (m.partitions < 0) {
    if (!m.error.ok()) return m.error;
    std::string why = "no metadata for topic '" + queues.name + "' from " + options.bootstrap;
    if (!last_transport_error.ok()) why += ": " + std::string(last_transport_error.message());
    return Status(ErrorCode::kTimeout, std::move(why));
  }
  if (queues.partitions.empty()) accumulator.set_partition_count(queues, m.partitions);
  return Status::Ok();
}

Status Producer::Impl::await_buffer_space(std::unique_lock<std::mutex>& lk, std::size_t size) {
  const auto fits = [&] {
    const std::size_t used = accumulator.buffered_bytes();
    return used == 0 || used + size <= options.buffer_bytes;
  };
  // From a callback (on the I/O thread) it never waits: only that thread
  // frees space.
  if (fits() || std::this_thread::get_id() == io.get_id()) return Status::Ok();
  wake();
  cv.wait_until(lk, Clock::now() + options.delivery_timeout, [&] { return fits() || stop; });
  if (stop) return Status(ErrorCode::kShuttingDown, "the producer is closed");
  if (!fits()) {
    return Status(ErrorCode::kResourceExhausted,
                  "producer buffer (" + std::to_string(options.buffer_bytes) +
                      " bytes) still full after the delivery timeout");
  }
  return Status::Ok();
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
  if (topic.size() > INT16_MAX) {
    // A protocol STRING (i16 length): it could not be encoded into a
    // Metadata or Produce request.
    fail_now(lk, Status(ErrorCode::kInvalidArgument, "topic name above 32767 bytes"), topic,
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
  TopicQueues& t = accumulator.topic(topic);
  if (t.partitions.empty()) {
    if (Status st = await_partitions(lk, t); !st.ok()) {
      fail_now(lk, st, t.name, partition, cb);
      return;
    }
  }
  const int32_t count = t.partition_count();
  if (partition >= count) {
    fail_now(lk,
             Status(ErrorCode::kUnknownPartition,
                    "topic '" + t.name + "' has no partition " + std::to_string(partition)),
             t.name, partition, cb);
    return;
  }
  Placement placement = Placement::kChosen;
  PartitionId chosen(partition);
  if (partition < 0 && key.empty()) {
    placement = Placement::kSticky;
    chosen = t.sticky;
  } else if (partition < 0) {
    chosen = PartitionId(KeyPartitioner::partition(key, count));
  }
  // A fenced partition fails the record at once, not after waiting for
  // buffer space.
  if (const Status& fenced = t.queue(chosen).fenced; !fenced.ok()) {
    fail_now(lk, accumulator.fenced_error(t, chosen, fenced), t.name, chosen.value(), cb);
    return;
  }
  if (Status st = await_buffer_space(lk, size); !st.ok()) {
    // The records queued before this one may still be delivered; those
    // sent after it must not be (no hole), so only the fence is set.
    if (!stop) accumulator.fence_later_records(t, chosen, st);
    fail_now(lk, st, t.name, chosen.value(), cb);
    return;
  }
  if (closed) {  // close() ran while this send waited
    fail_now(lk, Status(ErrorCode::kShuttingDown, "the producer is closed"), t.name, chosen.value(),
             cb);
    return;
  }
  const producer_internal::RecordAccumulator::Appended appended = accumulator.append(
      t, chosen, placement,
      {.key = key, .value = value, .headers = headers, .callback = cb, .entry_bytes = size});
  if (!appended.error.ok()) {
    if (appended.batch_changed) wake();
    fail_now(lk, appended.error, t.name, appended.partition.value(), cb);
    return;
  }
  ++tally.accepted;
  // A batch behind one in flight on its partition leaves once that one is
  // answered, and the I/O thread, which reads the answer, sends it then: a
  // wake-up now would find nothing to send (at 20,000 msg/s with linger 0
  // most batches were such; docs/performance.md, "No wake-up for a batch
  // behind one in flight").
  const bool for_io = appended.batch_changed && !appended.behind_in_flight;
  // With linger 0 a ready connection takes the record now, from this
  // thread, instead of after the I/O thread has woken up.
  const bool sent = for_io && sender.send_from_caller();
  lk.unlock();
  if (for_io && !sent) wake();
}

Status Producer::flush() {
  Impl& i = *impl_;
  std::unique_lock lk(i.mu);
  const uint64_t target = i.tally.accepted;
  ++i.flushing;
  i.wake();
  i.cv.wait(lk, [&] { return i.tally.completed >= target; });
  --i.flushing;
  return std::exchange(i.tally.first_error_in_flush, Status::Ok());
}

Status Producer::close() {
  Impl& i = *impl_;
  {
    std::unique_lock lk(i.mu);
    if (i.closed) return i.tally.first_error;
    i.closed = true;
    i.stop = true;
    i.stop_deadline = Impl::Clock::now() + i.options.delivery_timeout;
    i.cv.notify_all();
  }
  i.wake();
  if (i.io.joinable()) i.io.join();
  std::lock_guard lk(i.mu);
  return i.tally.first_error;
}

std::vector<FencedPartition> Producer::fenced_partitions() const {
  std::lock_guard lk(impl_->mu);
  return impl_->accumulator.fenced_partitions();
}

Status Producer::reset_partition(std::string_view topic, int32_t partition) {
  std::lock_guard lk(impl_->mu);
  return impl_->accumulator.reset_fence(topic, PartitionId(partition));
}

}  // namespace spillway
