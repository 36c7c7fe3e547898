// The load generator behind `spillway perf`: threads, schedule, measurement.
// It drives producers and consumers through two small interfaces, so the
// same harness runs against the real client (client/cli/perf_command.cc)
// and against fakes in tests. Each producer thread sends its share of the
// messages, either as fast as the producer accepts them (throughput mode)
// or each at its intended time start + k/rate (fixed-rate mode), and
// latency is measured from the intended time, so a stall delays and counts
// against every message behind it instead of being hidden.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "spillway/perf/latency_histogram.h"
#include "spillway/perf/perf_report.h"

namespace spillway::perf {

// Counts acknowledgements of one producer and records their latency.
// Called by the producer implementation, from one thread at a time.
class AckRecorder {
 public:
  AckRecorder(LatencyHistogram* histogram, std::atomic<uint64_t>* done) noexcept
      : histogram_(histogram), done_(done) {}
  // A message whose latency origin was `origin_ns` (a now_ns() value) was
  // acknowledged (ok) or failed. No allocation.
  void acked(uint64_t origin_ns, bool ok) noexcept;
  uint64_t acked_count() const noexcept { return acked_.load(std::memory_order_acquire); }
  uint64_t failed_count() const noexcept { return failed_.load(std::memory_order_acquire); }

 private:
  LatencyHistogram* histogram_;
  std::atomic<uint64_t>* done_;
  std::atomic<uint64_t> acked_{0};
  std::atomic<uint64_t> failed_{0};
};

// One producer, used by one harness thread.
class PerfProducer {
 public:
  virtual ~PerfProducer() = default;
  // Queues one message. The implementation must call recorder.acked(origin_ns, ok)
  // exactly once for it, when the broker acknowledged it or it failed (possibly
  // later, from the client's own thread). Returns "" when queued, else why not
  // (the run stops). `payload` is valid only during the call.
  virtual std::string send(std::span<const std::byte> payload, uint64_t origin_ns) = 0;
  // Sends whatever is buffered and waits until every queued message was
  // acknowledged or failed. Returns "" or an error.
  virtual std::string flush() = 0;
};

// One consumer, used by one harness thread.
class PerfConsumer {
 public:
  virtual ~PerfConsumer() = default;
  // Waits up to `timeout_ms` for messages and calls on_message(payload) for
  // each one received; payloads are valid only during that call. Returns ""
  // (also when nothing arrived) or an error (the run stops).
  virtual std::string poll(int timeout_ms,
                           const std::function<void(std::span<const std::byte>)>& on_message) = 0;
};

struct LoadPlan {
  uint32_t producers = 1;
  uint32_t consumers = 1;
  uint32_t message_bytes = 100;
  uint64_t messages = 0;     // total to send (or read); 0 = bounded by duration_ns
  uint64_t duration_ns = 0;  // 0 = bounded by messages
  uint64_t rate = 0;         // total messages/s over all producers; 0 = throughput mode
  // A consumer that receives nothing for this long ends its part of the run
  // (the topic is drained, or the producers died).
  uint64_t idle_timeout_ns = 5'000'000'000;
  bool show_progress = true;  // the progress line, when stderr is a terminal
};

// Makes producer i (0-based) whose acks go to `recorder` (which outlives it).
// Returns null with *error set when it cannot (e.g. no broker).
using ProducerFactory = std::function<std::unique_ptr<PerfProducer>(
    uint32_t index, AckRecorder& recorder, std::string* error)>;
using ConsumerFactory =
    std::function<std::unique_ptr<PerfConsumer>(uint32_t index, std::string* error)>;

// The histograms a run fills; the PerfResult points into it, so keep it alive
// as long as the result is used.
struct LoadOutcome {
  PerfResult result;
  std::unique_ptr<LatencyHistogram> latency;  // merged over threads
  std::string error;                          // "" when the run completed
};

// Every message's payload starts with the 8-byte little-endian latency
// origin (when message_bytes >= 8), so consumers can measure end to end.
void stamp_payload(std::span<std::byte> payload, uint64_t origin_ns) noexcept;
// The stamp, or 0 when the payload is shorter than 8 bytes.
uint64_t read_stamp(std::span<const std::byte> payload) noexcept;

// `produce`: latency = acknowledgement - origin (intended time in
// fixed-rate mode, send time in throughput mode, read every 16th message).
LoadOutcome run_produce(const LoadPlan& plan, const ProducerFactory& make_producer);

// `consume`: reads plan.messages (or until idle / duration); latency is not
// measured (stored messages carry old stamps).
LoadOutcome run_consume(const LoadPlan& plan, const ConsumerFactory& make_consumer);

// `e2e`: consumers start first, then producers; latency = receipt - origin
// of each message, as the consumer sees it.
LoadOutcome run_end_to_end(const LoadPlan& plan, const ProducerFactory& make_producer,
                           const ConsumerFactory& make_consumer);

}  // namespace spillway::perf
