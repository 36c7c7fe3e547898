// Producer::Impl: the state the Producer facade (producer.cc) shares between
// the callers' threads and its I/O thread, and the operations on it, each
// group defined in its own file:
//   producer_accumulator.cc  send(): staging records into partition batches
//   producer_metadata.cc     partition counts: asking for them, applying them
//   producer_request.cc      picking ready batches, framing Produce requests
//   producer_in_flight.cc    responses, ordered retries, completion callbacks
//   producer_fence.cc        no holes: a failed record fences its partition
//   producer_io_loop.cc      the I/O thread: connect, send, wait, read
//
// One mutex, `mu`, guards the shared state; members under "Owned by the I/O
// thread" are touched by that thread only.
#pragma once

#include <unistd.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "channel.h"
#include "in_flight_ring.h"
#include "producer_state.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"
#include "spillway/producer.h"

namespace spillway {

struct Producer::Impl {
  using Clock = producer_internal::Clock;
  using Batch = producer_internal::Batch;
  using PartitionState = producer_internal::PartitionState;
  using TopicState = producer_internal::TopicState;

  explicit Impl(ProducerOptions o)
      : options(std::move(o)), ring(static_cast<std::size_t>(options.max_in_flight)) {}
  ~Impl();

  const ProducerOptions options;

  std::mutex mu;
  std::condition_variable cv;  // metadata answers, completions
  std::map<std::string, std::unique_ptr<TopicState>, std::less<>> topics;
  // The topic of the last send(): most producers send to one topic, and the
  // map lookup (string compares down the tree) was a tenth of send()'s cost.
  // Topics are never erased, so the pointer stays valid.
  TopicState* last_topic = nullptr;
  Batch* free_batches = nullptr;
  std::vector<Batch*> all_batches;
  uint64_t accepted = 0;   // sends taken (including those failed at once)
  uint64_t completed = 0;  // callbacks run
  uint64_t failed = 0;
  std::size_t buffered = 0;     // staged entry bytes not yet completed
  Status first_error;           // of any record since creation
  Status first_error_in_flush;  // since the last flush() returned
  int flushing = 0;
  bool closed = false;  // no more sends
  bool stop = false;    // the I/O thread should finish
  Clock::time_point stop_deadline;
  int wake_fd = -1;

  // Owned by the I/O thread.
  std::thread io;
  wire::Channel channel;
  producer_internal::InFlightRing ring;  // max_in_flight slots
  Clock::time_point reconnect_at{};
  Status last_transport_error;
  WriteBuffer request{std::span<std::byte>()};
  batch::BatchBuilder builder;

  // Wakes the I/O thread from its wait.
  void wake() {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t r = ::write(wake_fd, &one, sizeof(one));
  }

  // Counts `records` failed with `st` (the first error is kept). Under mu.
  void note_failure(const Status& st, uint64_t records) {
    failed += records;
    if (first_error.ok()) first_error = st;
    if (first_error_in_flush.ok()) first_error_in_flush = st;
  }

  // --- producer_accumulator.cc (callers' threads, under mu) ---
  void send(std::string_view topic, std::span<const std::byte> key,
            std::span<const std::byte> value, std::span<const Header> headers, DeliveryCallback cb,
            int32_t partition);
  // A recycled (or, when the pool is empty, new) batch for `t`/`partition`.
  Batch* new_batch(TopicState* t, int32_t partition, Clock::time_point now);
  // Returns `b`'s staging memory to its pool and `b` to the free list.
  void free_batch(Batch* b);
  // Completes one send at once with `st`: runs `cb` without the lock held
  // by `lk`, then relocks.
  void fail_now(std::unique_lock<std::mutex>& lk, const Status& st, std::string_view topic,
                int32_t partition, DeliveryCallback cb);

  // --- producer_metadata.cc ---
  // Waits (callers' thread, `lk` held) until `t` has a partition count;
  // returns ok, or why there is none after delivery_timeout.
  Status await_partitions(std::unique_lock<std::mutex>& lk, TopicState* t);
  // I/O thread, under mu: frames a Metadata request for the wanted topics.
  void build_metadata_request();
  // I/O thread, under mu: applies a Metadata answer (`request_error` or the
  // response `body`) to the topics it was asked for and wakes the senders.
  void apply_metadata(Status request_error, std::span<const std::byte> body);

  // --- producer_request.cc (I/O thread) ---
  Batch* collect_ready(Clock::time_point now);
  void build_produce_request(Batch* batches, Batch** done);

  // --- producer_in_flight.cc (I/O thread) ---
  void disconnect(Status why, Batch** done);
  void handle_response(const wire::Response& response, Batch** done);
  void complete(Batch* b, const Status& st, int64_t base_offset, Batch** done);
  void run_callbacks(Batch* done);

  // --- producer_fence.cc (under mu) ---
  // Fences `partition` of `t` after one of its records failed with `cause`
  // (the first cause is kept): every batch still queued for it fails too,
  // unsent, into `done` (all of them were sent after the failed record, the
  // callers ensure), and send() fails later records of it until
  // Producer::reset_partition().
  void fence(TopicState* t, int32_t partition, const Status& cause, Batch** done);
  // The error of a record not sent because its partition is fenced.
  static Status fenced_error(const TopicState& t, int32_t partition, const Status& cause);

  // --- producer_io_loop.cc (I/O thread) ---
  void run();
  void fail_expired(Clock::time_point now, Batch** done);
  Clock::time_point next_due(Clock::time_point now);
};

}  // namespace spillway
