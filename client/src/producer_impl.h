// Producer::Impl: the state the callers' threads and the producer's I/O
// thread share, and the caller's side of the producer (producer.cc):
// validating a record, waiting for its topic's partition count and for
// buffer space, and staging it. It composes
//   RecordAccumulator (record_accumulator.h)  the per-partition batch queues
//   MetadataCache     (metadata_cache.h)      partition counts per topic
//   Sender            (producer_sender.h)     the I/O thread, which owns the
//                                             connection and InFlightRequests
//
// One mutex, `mu`, guards everything under "Shared"; the Sender's own
// members are touched by the I/O thread only.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>

#include "metadata_cache.h"
#include "producer_sender.h"
#include "record_accumulator.h"
#include "spillway/common/status.h"
#include "spillway/producer.h"

namespace spillway {

// How many sends completed and the first error among them.
struct DeliveryTally {
  uint64_t accepted = 0;        // sends taken (including those failed at once)
  uint64_t completed = 0;       // callbacks run
  Status first_error;           // of any record since creation
  Status first_error_in_flush;  // since the last flush() returned

  // Counts a failure with `st` (the first error is kept).
  void note_failure(const Status& st) {
    if (first_error.ok()) first_error = st;
    if (first_error_in_flush.ok()) first_error_in_flush = st;
  }
};

struct Producer::Impl {
  using Clock = producer_internal::Clock;

  explicit Impl(ProducerOptions o, int wake_fd);
  ~Impl();  // closes the wake eventfd

  const ProducerOptions options;
  const int wake_fd;  // an eventfd: a write wakes the I/O thread's wait

  std::mutex mu;
  std::condition_variable cv;  // metadata answers, completions, buffer space
  // Shared, under mu.
  producer_internal::RecordAccumulator accumulator;
  producer_internal::MetadataCache metadata;
  DeliveryTally tally;
  int flushing = 0;     // flush() calls waiting: send without lingering
  bool closed = false;  // no more sends
  bool stop = false;    // the I/O thread should finish
  Clock::time_point stop_deadline;
  Status last_transport_error;  // why the connection is down, for error messages

  producer_internal::Sender sender;  // run by `io`
  std::thread io;

  // Wakes the I/O thread from its wait.
  void wake() const noexcept;

  // send(), on the caller's thread (producer.cc).
  void send(std::string_view topic, std::span<const std::byte> key,
            std::span<const std::byte> value, std::span<const Header> headers, DeliveryCallback cb,
            int32_t partition);

 private:
  // Completes one send at once with `st`: runs `cb` without the lock held
  // by `lk`, then relocks.
  void fail_now(std::unique_lock<std::mutex>& lk, const Status& st, std::string_view topic,
                int32_t partition, DeliveryCallback cb);
  // Waits (`lk` held) until the topic of `queues` has a partition count and
  // sizes its queues; returns ok, or why there is none after
  // delivery_timeout.
  Status await_partitions(std::unique_lock<std::mutex>& lk, producer_internal::TopicQueues& queues);
  // Waits (`lk` held) until `size` more bytes fit the buffer; ok, or why not
  // (closed, or the delivery timeout passed).
  Status await_buffer_space(std::unique_lock<std::mutex>& lk, std::size_t size);
};

}  // namespace spillway
