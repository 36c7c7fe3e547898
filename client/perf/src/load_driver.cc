// The threads of a `spillway perf` run. Everything a thread needs (payload
// buffer, histogram) is allocated before its loop starts; inside the loop
// only the producer/consumer under test may allocate.
#include "spillway/perf/load_driver.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "spillway/perf/progress_line.h"
#include "spillway/perf/rate_schedule.h"

namespace spillway::perf {

void AckRecorder::acked(uint64_t origin_ns, bool ok) noexcept {
  if (!ok) {
    failed_.fetch_add(1, std::memory_order_release);
    return;
  }
  const uint64_t now = now_ns();
  histogram_->record(now > origin_ns ? now - origin_ns : 0);
  acked_.fetch_add(1, std::memory_order_release);
  if (done_ != nullptr) done_->fetch_add(1, std::memory_order_relaxed);
}

void stamp_payload(std::span<std::byte> payload, uint64_t origin_ns) noexcept {
  if (payload.size() < 8) return;
  for (int i = 0; i < 8; ++i) payload[i] = static_cast<std::byte>(origin_ns >> (8 * i));
}

uint64_t read_stamp(std::span<const std::byte> payload) noexcept {
  if (payload.size() < 8) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(payload[i]) << (8 * i);
  return v;
}

namespace {

// State shared by the threads of one run.
// Each counter a different thread writes per message sits on its own cache
// line: sharing one made the sender and the producer's I/O thread bounce it
// between the cores on every message.
struct RunState {
  alignas(64) std::atomic<uint64_t> completed{0};  // acks (produce) or receipts (consume, e2e)
  alignas(64) std::atomic<bool> stop{false};       // read-mostly
  std::atomic<bool> producers_done{false};
  alignas(64) std::atomic<uint64_t> sent{0};
  alignas(64) std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> received_bytes{0};   // payload bytes of those, as read
  std::atomic<uint64_t> last_receive_ns{0};  // written with received, by the consumers
  alignas(64) std::mutex error_mutex;
  std::string error;

  void fail(std::string message) {
    std::lock_guard lock(error_mutex);
    if (error.empty()) error = std::move(message);
    stop.store(true);
  }
};

// In throughput mode, how often a producer thread reads the clock.
constexpr uint64_t kSendClockEvery = 16;

// Producer side of produce and e2e. Creates the producers, then sets
// *start_ns (the intended time of message 0) just after they are ready, so
// connecting is not counted as lateness. Merges ack latencies into
// `histogram` when non-null; `ack_progress` counts acks for the progress
// line (null in e2e, where receipts are counted). Returns messages acked.
uint64_t drive_producers(const LoadPlan& plan, const ProducerFactory& make_producer,
                         RunState& state, uint64_t* start_ns, LatencyHistogram* histogram,
                         std::atomic<uint64_t>* ack_progress, uint64_t* failed) {
  *failed = 0;
  const uint32_t count = std::max<uint32_t>(1, plan.producers);
  std::vector<std::unique_ptr<LatencyHistogram>> histograms;
  std::vector<std::unique_ptr<AckRecorder>> recorders;
  std::vector<std::unique_ptr<PerfProducer>> producers;
  for (uint32_t i = 0; i < count; ++i) {
    histograms.push_back(std::make_unique<LatencyHistogram>());
    recorders.push_back(std::make_unique<AckRecorder>(histograms.back().get(), ack_progress));
    std::string error;
    producers.push_back(make_producer(i, *recorders.back(), &error));
    if (!producers.back()) {
      state.fail("producer " + std::to_string(i) + ": " + error);
      return 0;
    }
  }
  *start_ns = std::max(*start_ns, now_ns() + 1'000'000);
  const uint64_t start = *start_ns;
  const RateSchedule schedule(start, plan.rate == 0 ? 1 : plan.rate);
  const uint64_t end_ns = plan.duration_ns ? start + plan.duration_ns : UINT64_MAX;
  std::vector<std::thread> threads;
  for (uint32_t i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      std::vector<std::byte> payload(plan.message_bytes, std::byte{'x'});
      PerfProducer& producer = *producers[i];
      wait_until_ns(start);
      uint64_t sent_at = 0;
      for (uint64_t n = 0;; ++n) {
        const uint64_t k = RateSchedule::message_of_sender(n, i, count);
        if ((plan.messages != 0 && k >= plan.messages) ||
            state.stop.load(std::memory_order_relaxed))
          break;
        uint64_t origin;
        if (plan.rate != 0) {
          origin = schedule.intended_ns(k);
          if (origin >= end_ns) break;
          wait_until_ns(origin);
        } else {
          // The send time is read for every 16th message only; the others
          // carry the last reading, at most 15 sends (a few microseconds)
          // early. A clock read costs about as much as a 100 B send (24-26 ns
          // here), and this is the harness's cost, not the producer's.
          if (n % kSendClockEvery == 0) sent_at = now_ns();
          origin = sent_at;
          if (origin >= end_ns) break;
        }
        stamp_payload(payload, origin);
        std::string error = producer.send(payload, origin);
        if (!error.empty()) {
          state.fail("producer " + std::to_string(i) + ": " + error);
          break;
        }
        state.sent.fetch_add(1, std::memory_order_relaxed);
      }
      std::string error = producer.flush();
      if (!error.empty()) state.fail("producer " + std::to_string(i) + ": " + error);
    });
  }
  for (std::thread& t : threads) t.join();
  producers.clear();  // a producer may deliver its last acks while closing
  uint64_t acked = 0;
  for (uint32_t i = 0; i < count; ++i) {
    acked += recorders[i]->acked_count();
    *failed += recorders[i]->failed_count();
    if (histogram != nullptr) histogram->merge(*histograms[i]);
  }
  return acked;
}

// What the consumers of a run are for.
enum class ConsumeRole : uint8_t {
  kDrain,     // `consume`: read the topic back until the count, duration or idle end
  kEndToEnd,  // `e2e`: record receipt - stamp; run until every sent message arrived
};

// The consumer threads of a run and the latency histograms they fill.
struct ConsumerThreads {
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<LatencyHistogram>> histograms;

  void join() {
    for (std::thread& t : threads) t.join();
  }
};

// The progress line of a run whose consumers count receipts: messages of
// any size, by the bytes read. Shown when the plan asks for it.
void show_receipt_progress(const LoadPlan& plan, RunState& state,
                           std::optional<ProgressLine>* progress) {
  if (!plan.show_progress) return;
  progress->emplace(&state.completed, plan.message_bytes, plan.messages, stderr,
                    ProgressDisplay::kIfTerminal, &state.received_bytes);
}

// Consumer side of consume and e2e.
void drive_consumers(const LoadPlan& plan, const ConsumerFactory& make_consumer, RunState& state,
                     uint64_t start_ns, ConsumeRole role, ConsumerThreads* out) {
  const bool end_to_end = role == ConsumeRole::kEndToEnd;
  const uint32_t count = std::max<uint32_t>(1, plan.consumers);
  std::vector<std::unique_ptr<PerfConsumer>> consumers;
  for (uint32_t i = 0; i < count; ++i) {
    std::string error;
    consumers.push_back(make_consumer(i, &error));
    if (!consumers.back()) {
      state.fail("consumer " + std::to_string(i) + ": " + error);
      return;
    }
    out->histograms.push_back(std::make_unique<LatencyHistogram>());
  }
  const uint64_t end_ns =
      plan.duration_ns && !end_to_end ? start_ns + plan.duration_ns : UINT64_MAX;
  for (uint32_t i = 0; i < count; ++i) {
    out->threads.emplace_back([&state, &plan, end_to_end, end_ns, i,
                               consumer = std::shared_ptr<PerfConsumer>(std::move(consumers[i])),
                               h = out->histograms[i].get()] {
      uint64_t last_progress = now_ns();
      uint64_t bytes = 0;  // read in this poll: added to the shared count once per poll
      const std::function<void(std::span<const std::byte>)> on_message =
          [&](std::span<const std::byte> payload) {
            const uint64_t now = now_ns();
            if (end_to_end) {
              const uint64_t stamp = read_stamp(payload);
              if (stamp != 0) h->record(now > stamp ? now - stamp : 0);
            }
            state.received.fetch_add(1, std::memory_order_relaxed);
            bytes += payload.size();
            state.completed.fetch_add(1, std::memory_order_relaxed);
            uint64_t seen = state.last_receive_ns.load(std::memory_order_relaxed);
            while (seen < now && !state.last_receive_ns.compare_exchange_weak(seen, now)) {
            }
            last_progress = now;
          };
      for (;;) {
        if (state.stop.load()) break;
        const uint64_t received = state.received.load();
        if (plan.messages != 0 && received >= plan.messages) break;
        if (end_to_end && state.producers_done.load() && received >= state.sent.load()) break;
        const uint64_t now = now_ns();
        if (now >= end_ns) break;
        // Idle: the topic is drained (consume) or the producers are gone.
        if (now - last_progress > plan.idle_timeout_ns &&
            (!end_to_end || state.producers_done.load()))
          break;
        std::string error = consumer->poll(100, on_message);
        state.received_bytes.fetch_add(bytes, std::memory_order_relaxed);
        bytes = 0;
        if (!error.empty()) {
          state.fail("consumer " + std::to_string(i) + ": " + error);
          break;
        }
      }
    });
  }
}

PerfResult base_result(const LoadPlan& plan, const char* mode) {
  PerfResult r;
  r.mode = mode;
  r.producers = plan.producers;
  r.consumers = plan.consumers;
  r.message_bytes = plan.message_bytes;
  r.target_rate = plan.rate;
  r.latency_origin = plan.rate != 0 ? "intended send time" : "send time";
  return r;
}

}  // namespace

LoadOutcome run_produce(const LoadPlan& plan, const ProducerFactory& make_producer) {
  LoadOutcome out;
  out.latency = std::make_unique<LatencyHistogram>();
  RunState state;
  std::optional<ProgressLine> progress;
  if (plan.show_progress) progress.emplace(&state.completed, plan.message_bytes, plan.messages);
  uint64_t start = 0, failed = 0;
  const uint64_t acked = drive_producers(plan, make_producer, state, &start, out.latency.get(),
                                         &state.completed, &failed);
  const uint64_t end = now_ns();
  if (progress) progress->stop();
  out.result = base_result(plan, "produce");
  out.result.producers = std::max<uint32_t>(1, plan.producers);
  out.result.consumers = 0;
  out.result.messages = acked;
  out.result.errors = failed;
  out.result.bytes = acked * plan.message_bytes;
  out.result.elapsed_ns = end > start ? end - start : 0;
  out.result.latency_origin += " (to acknowledgement)";
  out.result.latency = out.latency.get();
  out.error = state.error;
  return out;
}

LoadOutcome run_consume(const LoadPlan& plan, const ConsumerFactory& make_consumer) {
  LoadOutcome out;
  RunState state;
  std::optional<ProgressLine> progress;
  show_receipt_progress(plan, state, &progress);
  ConsumerThreads consumers;
  const uint64_t start = now_ns();
  drive_consumers(plan, make_consumer, state, start, ConsumeRole::kDrain, &consumers);
  consumers.join();
  if (progress) progress->stop();
  const uint64_t last = state.last_receive_ns.load();
  out.result = base_result(plan, "consume");
  out.result.producers = 0;
  out.result.consumers = std::max<uint32_t>(1, plan.consumers);
  out.result.messages = state.received.load();
  // What was read, whatever --size says: the stored messages may differ.
  out.result.bytes = state.received_bytes.load();
  if (out.result.messages != 0) {
    out.result.message_bytes =
        static_cast<uint32_t>((out.result.bytes + out.result.messages / 2) / out.result.messages);
  }
  out.result.elapsed_ns = last > start ? last - start : 0;
  out.error = state.error;
  return out;
}

LoadOutcome run_end_to_end(const LoadPlan& plan, const ProducerFactory& make_producer,
                           const ConsumerFactory& make_consumer) {
  LoadOutcome out;
  out.latency = std::make_unique<LatencyHistogram>();
  RunState state;
  std::optional<ProgressLine> progress;
  show_receipt_progress(plan, state, &progress);
  ConsumerThreads consumers;
  // Consumers first, so that they are polling when the first message is due.
  drive_consumers(plan, make_consumer, state, now_ns(), ConsumeRole::kEndToEnd, &consumers);
  uint64_t start = now_ns() + 20'000'000, failed = 0;
  if (!state.stop.load())
    drive_producers(plan, make_producer, state, &start, nullptr, nullptr, &failed);
  state.producers_done.store(true);
  consumers.join();
  if (progress) progress->stop();
  for (const auto& h : consumers.histograms) out.latency->merge(*h);
  const uint64_t last = state.last_receive_ns.load();
  out.result = base_result(plan, "e2e");
  out.result.producers = std::max<uint32_t>(1, plan.producers);
  out.result.consumers = std::max<uint32_t>(1, plan.consumers);
  out.result.messages = state.received.load();
  out.result.errors = failed;
  out.result.bytes = state.received_bytes.load();
  out.result.elapsed_ns = last > start ? last - start : 0;
  out.result.latency_origin += " (to receipt by a consumer)";
  out.result.latency = out.latency.get();
  out.error = state.error;
  return out;
}

}  // namespace spillway::perf
