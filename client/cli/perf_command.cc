// `spillway perf produce|consume|e2e`: load tests against a broker. The
// harness (threads, fixed-rate schedule, histograms, report, plot) lives in
// client/perf (spillway_perf); this file parses the flags and adapts
// spillway::Producer / spillway::Consumer to the harness's two interfaces.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "spillway/perf/load_driver.h"
#include "spillway/perf/percentile_plot.h"
#include "spillway/perf/perf_report.h"
#include "topic_name_check.h"

#if __has_include("spillway/producer.h")
#include "spillway/producer.h"
#define SPILLWAY_PERF_HAS_PRODUCER 1
#endif
#if __has_include("spillway/consumer.h")
#include "spillway/admin.h"
#include "spillway/consumer.h"
#define SPILLWAY_PERF_HAS_CONSUMER 1
#endif

namespace spillway::cli {

namespace {

struct PerfOptions {
  std::string mode;  // produce, consume, e2e
  std::string broker = kDefaultBroker;
  std::string topic = "perf";
  uint32_t producers = 1;
  uint32_t consumers = 1;
  uint32_t size = 100;
  uint64_t count = 0;
  double duration_s = 0;
  uint32_t partitions = 1;
  DeliveryFlags delivery;
  uint32_t batch_bytes = 256u << 10;
  uint32_t linger_ms = 5;
  uint64_t rate = 0;
  uint32_t window = 0;  // 0 = about 4 MiB of payload: clamp(4 MiB / size, 1024, 65536)
  uint64_t keys = 0;    // 0 = keyless; else each producer cycles through keys "0".."keys-1"
  bool json = false;    // --json, the same as --output json
  std::string output = "text";
  std::string plot;
};

#ifdef SPILLWAY_PERF_HAS_PRODUCER

// One spillway::Producer (its own connection and I/O thread) per harness
// thread. Each in-flight message needs its latency origin back in the
// delivery callback without allocating: it rides in one of `window`
// preallocated slots, handed out and returned through a single-producer /
// single-consumer ring of free slot numbers (the sending thread takes, the
// producer's I/O thread gives back). The window also bounds the messages in
// flight, as NATS's max pending acks does.
class ClientProducer final : public perf::PerfProducer {
 public:
  // `window` >= 1: messages sent but not yet acknowledged, at most.
  // `keys` > 0: the messages carry keys cycling through that many values, so
  // the producer's key hash spreads them over the partitions as keyed
  // traffic does (one batch per partition, not the keyless sticky batch).
  ClientProducer(std::unique_ptr<Producer> producer, std::string topic, perf::AckRecorder& recorder,
                 uint32_t window, uint64_t keys)
      : producer_(std::move(producer)),
        topic_(std::move(topic)),
        recorder_(recorder),
        window_(window),
        keys_(keys),
        slots_(window),
        free_(window) {
    for (uint32_t i = 0; i < window; ++i) {
      slots_[i].owner = this;
      slots_[i].index = i;
      free_[i] = i;
    }
    free_tail_.store(window);
  }

  ~ClientProducer() override {
    // Every callback has run once close() returns; the slots outlive them.
    (void)producer_->close();
  }

  std::string send(std::span<const std::byte> payload, uint64_t origin_ns) override {
    // Wait for a free slot: the window of unacknowledged messages is full.
    // Block (futex) rather than spin: on a small machine the spinning
    // sender would take the core the I/O thread and the broker need.
    // free_tail_ is read only when the slots known to be free run out: its
    // cache line changes with every ack, and reading it per send cost a
    // cross-core miss per message.
    if (free_head_ == known_tail_) {
      known_tail_ = free_tail_.load(std::memory_order_acquire);
      if (free_head_ == known_tail_) wait_for_free_slots();
    }
    Slot& slot = slots_[free_[free_head_ % window_]];
    ++free_head_;
    slot.origin_ns = origin_ns;
    std::span<const std::byte> key;
    char digits[24];
    if (keys_ != 0) {
      const auto end = std::to_chars(digits, digits + sizeof digits, next_key_).ptr;
      key = std::as_bytes(std::span(digits, static_cast<size_t>(end - digits)));
      if (++next_key_ == keys_) next_key_ = 0;
    }
    producer_->send(topic_, key, payload, {}, DeliveryCallback{&on_delivery, &slot});
    return first_error();
  }

  std::string flush() override {
    const Status status = producer_->flush();
    if (!status.ok()) return status.to_string();
    return first_error();
  }

 private:
  struct Slot {
    ClientProducer* owner = nullptr;
    uint32_t index = 0;
    uint64_t origin_ns = 0;
  };

  static void on_delivery(void* context, const Status& status, const RecordMetadata&) {
    Slot& slot = *static_cast<Slot*>(context);
    ClientProducer& self = *slot.owner;
    self.recorder_.acked(slot.origin_ns, status.ok());
    if (!status.ok() && !self.failed_.exchange(true)) {
      std::lock_guard lock(self.error_mutex_);
      self.error_ = status.to_string();
    }
    const uint64_t tail = self.free_tail_.load(std::memory_order_relaxed);
    self.free_[tail % self.window_] = slot.index;
    // seq_cst store, then load: pairs with the sender's store of wake_tail_
    // and load of free_tail_, so one of the two sees the other's write.
    self.free_tail_.store(tail + 1, std::memory_order_seq_cst);
    if (tail + 1 == self.wake_tail_.load(std::memory_order_seq_cst)) self.free_tail_.notify_one();
  }

  // The window is full. Sleeps until a quarter of it is free again, not
  // until the next acknowledgement: woken per slot, the sender took one and
  // slept again, and the producer's I/O thread paid a futex wake (a system
  // call) for nearly every message it acknowledged.
  void wait_for_free_slots() {
    const uint64_t wanted = free_head_ + std::max<uint32_t>(1, window_ / 4);
    wake_tail_.store(wanted, std::memory_order_seq_cst);
    for (known_tail_ = free_tail_.load(std::memory_order_seq_cst); known_tail_ < wanted;
         known_tail_ = free_tail_.load(std::memory_order_seq_cst)) {
      free_tail_.wait(known_tail_, std::memory_order_seq_cst);
    }
  }

  std::string first_error() {
    if (!failed_.load(std::memory_order_relaxed)) return {};
    std::lock_guard lock(error_mutex_);
    return error_;
  }

  std::unique_ptr<Producer> producer_;
  std::string topic_;
  perf::AckRecorder& recorder_;
  uint32_t window_;
  uint64_t keys_;
  uint64_t next_key_ = 0;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;  // ring of free slot numbers
  uint64_t free_head_ = 0;      // next to take; the sending thread's
  uint64_t known_tail_ = 0;     // free_tail_ as the sending thread last read it
  std::atomic<bool> failed_{false};
  // Written by the I/O thread per ack: on a line of its own, so the sender's
  // fields do not bounce with it.
  alignas(64) std::atomic<uint64_t> free_tail_{0};
  // The free_tail_ at which the waiting sender wants to be woken (only
  // written while the window is full, so it stays on free_tail_'s line).
  std::atomic<uint64_t> wake_tail_{0};
  std::mutex error_mutex_;
  std::string error_;
};

Result<ProducerOptions> producer_options(const PerfOptions& o) {
  ProducerOptions options;
  options.bootstrap = o.broker;
  options.security = cli_security();
  o.delivery.apply(&options);
  options.batch_bytes = o.batch_bytes;
  options.linger = std::chrono::milliseconds(o.linger_ms);
  return options;
}

perf::ProducerFactory make_producer_factory(const PerfOptions& o) {
  return [o](uint32_t, perf::AckRecorder& recorder,
             std::string* error) -> std::unique_ptr<perf::PerfProducer> {
    Result<ProducerOptions> options = producer_options(o);
    if (!options.ok()) {
      *error = options.status().to_string();
      return nullptr;
    }
    Result<std::unique_ptr<Producer>> producer = Producer::create(*options);
    if (!producer.ok()) {
      *error = producer.status().to_string();
      return nullptr;
    }
    const uint32_t window =
        o.window != 0 ? o.window : std::clamp<uint32_t>((4u << 20) / o.size, 1'024, 65'536);
    return std::make_unique<ClientProducer>(std::move(*producer), o.topic, recorder, window,
                                            o.keys);
  };
}

#else

perf::ProducerFactory make_producer_factory(const PerfOptions&) {
  return [](uint32_t, perf::AckRecorder&, std::string* error) {
    *error = "not available yet: this build has no spillway::Producer (issue 5)";
    return std::unique_ptr<perf::PerfProducer>();
  };
}

#endif

#ifdef SPILLWAY_PERF_HAS_CONSUMER

// One spillway::Consumer per harness thread, reading its share of the
// partitions (consumer i of C takes partitions p with p % C == i).
class ClientConsumer final : public perf::PerfConsumer {
 public:
  explicit ClientConsumer(std::unique_ptr<Consumer> consumer) : consumer_(std::move(consumer)) {}

  std::string poll(int timeout_ms,
                   const std::function<void(std::span<const std::byte>)>& on_message) override {
    Result<ConsumerRecords> records = consumer_->poll(std::chrono::milliseconds(timeout_ms));
    if (!records.ok()) return records.status().to_string();
    for (const ConsumerRecord& record : *records) on_message(record.value);
    return "";
  }

 private:
  std::unique_ptr<Consumer> consumer_;
};

perf::ConsumerFactory make_consumer_factory(const PerfOptions& o, int32_t partitions) {
  return
      [o, partitions](uint32_t index, std::string* error) -> std::unique_ptr<perf::PerfConsumer> {
        std::vector<int32_t> mine;
        for (int32_t p = 0; p < partitions; ++p) {
          if (static_cast<uint32_t>(p) % o.consumers == index) mine.push_back(p);
        }
        if (mine.empty()) {
          *error = "more consumers (" + std::to_string(o.consumers) + ") than partitions (" +
                   std::to_string(partitions) + ")";
          return nullptr;
        }
        ConsumerOptions options;
        options.bootstrap = o.broker;
        options.security = cli_security();
        // consume reads the stored topic from its start; e2e only what is new.
        options.reset = o.mode == "consume" ? OffsetReset::kEarliest : OffsetReset::kLatest;
        options.fetch_max_wait = std::chrono::milliseconds(100);
        Result<std::unique_ptr<Consumer>> consumer = Consumer::create(options);
        if (!consumer.ok()) {
          *error = consumer.status().to_string();
          return nullptr;
        }
        Status status = (*consumer)->assign(o.topic, mine);
        // e2e: fix the start position now, before the first message is sent.
        for (size_t i = 0; status.ok() && o.mode == "e2e" && i < mine.size(); ++i) {
          status = (*consumer)->seek_to_end(o.topic, mine[i]);
        }
        if (!status.ok()) {
          *error = status.to_string();
          return nullptr;
        }
        return std::make_unique<ClientConsumer>(std::move(*consumer));
      };
}

#else

perf::ConsumerFactory make_consumer_factory(const PerfOptions&, int32_t) {
  return [](uint32_t, std::string* error) {
    *error = "not available yet: this build has no spillway::Consumer (issue 5)";
    return std::unique_ptr<perf::PerfConsumer>();
  };
}

#endif

// Makes sure the topic exists (creating it with --partitions when it does
// not) and returns its partition count and stored message count.
struct TopicState {
  int32_t partitions = 1;
  uint64_t stored = 0;  // sum over partitions of high watermark - log start
};

#ifdef SPILLWAY_PERF_HAS_CONSUMER
Result<TopicState> prepare_topic(const PerfOptions& o) {
  ConnectionOptions connection;
  connection.security = cli_security();
  Result<Admin> admin = Admin::connect(o.broker, connection);
  if (!admin.ok()) return admin.status();
  if (o.mode != "consume") {
    TopicOptions options;
    options.partitions = static_cast<int32_t>(o.partitions);
    const Status created = admin->create_topic(o.topic, options);
    if (!created.ok() && created.code() != ErrorCode::kTopicExists) return created;
  }
  Result<TopicDescription> topic = admin->describe_topic(o.topic);
  if (!topic.ok()) return topic.status();
  TopicState state;
  state.partitions = static_cast<int32_t>(topic->partitions.size());
  for (const PartitionDescription& p : topic->partitions) {
    if (p.high_watermark > p.log_start_offset)
      state.stored += static_cast<uint64_t>(p.high_watermark - p.log_start_offset);
  }
  return state;
}
#else
Result<TopicState> prepare_topic(const PerfOptions&) {
  return TopicState{};
}
#endif

int run_perf(const PerfOptions& o) {
  perf::LoadPlan plan;
  plan.producers = o.producers;
  plan.consumers = o.consumers;
  plan.message_bytes = o.size;
  plan.messages = o.count;
  plan.duration_ns = static_cast<uint64_t>(std::llround(o.duration_s * 1e9));
  plan.rate = o.rate;
  // Without a bound, produce and e2e run 10 s; consume reads until idle.
  if (plan.messages == 0 && plan.duration_ns == 0 && o.mode != "consume")
    plan.duration_ns = 10'000'000'000;
  plan.idle_timeout_ns = 2'000'000'000;
  plan.show_progress = true;  // only drawn when stderr is a terminal

  Result<TopicState> topic = prepare_topic(o);
  if (!topic.ok()) {
    std::fprintf(stderr, "spillway perf %s: topic %s: %s\n", o.mode.c_str(), o.topic.c_str(),
                 topic.status().to_string().c_str());
    return 1;
  }
  // consume without --count reads what is stored when it starts.
  if (o.mode == "consume" && plan.messages == 0 && plan.duration_ns == 0) {
    plan.messages = topic->stored;
    if (plan.messages == 0) {
      std::fprintf(stderr, "spillway perf consume: topic %s is empty\n", o.topic.c_str());
      return 1;
    }
  }
  perf::LoadOutcome outcome;
  if (o.mode == "produce") {
    outcome = perf::run_produce(plan, make_producer_factory(o));
  } else if (o.mode == "consume") {
    outcome = perf::run_consume(plan, make_consumer_factory(o, topic->partitions));
  } else {
    outcome = perf::run_end_to_end(plan, make_producer_factory(o),
                                   make_consumer_factory(o, topic->partitions));
  }
  if (!outcome.error.empty()) {
    std::fprintf(stderr, "spillway perf %s: %s\n", o.mode.c_str(), outcome.error.c_str());
    return 1;
  }
  const bool json = o.json || o.output == "json";
  const std::string report =
      json ? perf::format_json(outcome.result) : perf::format_table(outcome.result);
  std::fputs(report.c_str(), stdout);
  if (!o.plot.empty() &&
      (outcome.result.latency == nullptr || outcome.result.latency->count() == 0)) {
    std::fprintf(stderr,
                 "spillway perf %s: --plot %s not written: no message completed, so no latency "
                 "was measured\n",
                 o.mode.c_str(), o.plot.c_str());
    return 1;
  }
  if (!o.plot.empty()) {
    std::string title = "spillway perf " + o.mode + ": " + std::to_string(o.size) + " B messages";
    if (o.rate != 0) title += " at " + perf::group_thousands(o.rate) + " msg/s";
    std::vector<perf::PlotSeries> series;
    if (outcome.result.latency != nullptr) {
      series.push_back({"latency from " + outcome.result.latency_origin, outcome.result.latency});
    }
    const std::string error =
        perf::write_text_file(o.plot, perf::render_percentile_svg(title, series));
    if (!error.empty()) {
      std::fprintf(stderr, "spillway perf: --plot %s\n", error.c_str());
      return 1;
    }
  }
  return outcome.result.errors == 0 ? 0 : 1;
}

void add_mode(CLI::App& perf, const char* mode, const char* description, int* exit_code) {
  auto o = std::make_shared<PerfOptions>();
  o->mode = mode;
  CLI::App* cmd = perf.add_subcommand(mode, description);
  const std::string m = mode;
  cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")->capture_default_str();
  cmd->add_option("-t,--topic", o->topic, "topic to use")
      ->check(topic_name_check())
      ->capture_default_str();
  CLI::Option* size =
      cmd->add_option("-s,--size", o->size,
                      m == "consume"
                          ? "ignored: consume measures the messages it reads"
                          : "message size in bytes (>= 8 for e2e: it carries a timestamp)")
          ->check(CLI::Range(1u, 1u << 20))
          ->capture_default_str();
  if (m == "e2e") {
    size->check(CLI::Validator(
        [](std::string& value) -> std::string {
          return std::strtoul(value.c_str(), nullptr, 10) < 8
                     ? "must be at least 8 for e2e: each message carries its "
                       "8-byte send time"
                     : "";
        },
        ">= 8", "timestamp room"));
  }
  cmd->add_option("-n,--count", o->count, "messages in total (0 = bounded by --duration)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40));
  cmd->add_option("-d,--duration", o->duration_s,
                  "seconds to run (default 10 for produce and e2e when --count is absent)")
      ->check(CLI::Range(0.0, 86'400.0));
  if (m != "consume") {
    // No short flag: -p is a partition in every other subcommand.
    cmd->add_option("--producers", o->producers, "producer threads, one connection each")
        ->check(CLI::Range(1u, 1'024u))
        ->capture_default_str();
    o->delivery.add_to(cmd, "when the broker acknowledges", "batch compression");
    cmd->add_option("--batch-bytes", o->batch_bytes, "producer batch size in bytes")
        ->check(CLI::Range(1'024u, 1u << 30))
        ->capture_default_str();
    cmd->add_option("--linger-ms", o->linger_ms, "how long a batch waits for more messages")
        ->check(CLI::Range(0u, 60'000u))
        ->capture_default_str();
    cmd->add_option("--rate", o->rate,
                    "fixed-rate mode: total messages/s, each sent at its intended time and "
                    "its latency measured from it (absent = as fast as possible)")
        ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000'000}));
    cmd->add_option("--window", o->window,
                    "messages a producer may have sent but not yet seen acknowledged; "
                    "when full, it waits (bounds send-to-ack latency in throughput mode); "
                    "default about 4 MiB of messages, 1024 to 65536")
        ->check(CLI::Range(1u, 1u << 22));
    cmd->add_option("--keys", o->keys,
                    "give the messages keys cycling through this many values, so they spread "
                    "over the partitions by key hash (0 = no keys: batches go to one "
                    "partition at a time)")
        ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40))
        ->capture_default_str();
  }
  if (m != "produce") {
    cmd->add_option("-c,--consumers", o->consumers, "consumer threads, one connection each")
        ->check(CLI::Range(1u, 1'024u))
        ->capture_default_str();
  }
  cmd->add_option("--partitions", o->partitions,
                  "partitions of the topic when this command creates it (an existing topic "
                  "keeps its own)")
      ->check(CLI::Range(1u, 65'536u))
      ->capture_default_str();
  CLI::Option* output = cmd->add_option("-o,--output", o->output,
                                        "text, or json: the report as one JSON object on one line")
                            ->check(CLI::IsMember({"text", "json"}))
                            ->capture_default_str();
  cmd->add_flag("--json", o->json, "the same as --output json")->excludes(output);
  CLI::Option* plot =
      cmd->add_option("--plot", o->plot, "write a latency-percentile chart (SVG) to this file");
  if (m == "consume") {
    // Stored messages carry old send times: consume measures no latency.
    plot->check(CLI::Validator(
        [](std::string&) -> std::string {
          return "perf consume measures no latency, so there is nothing to plot (perf e2e "
                 "--plot charts produce-to-consume latency)";
        },
        "FILE", "nothing to plot"));
  }
  cmd->callback([o, exit_code] { *exit_code = run_perf(*o); });
}

}  // namespace

void add_perf_command(CLI::App& app, int* exit_code) {
  CLI::App* perf = app.add_subcommand("perf", "Load-test a broker: throughput and latency");
  perf->require_subcommand(1);
  add_mode(*perf, "produce", "Send messages; report acks/s and send-to-ack latency", exit_code);
  add_mode(*perf, "consume", "Read a topic back from its start; report messages/s", exit_code);
  add_mode(*perf, "e2e", "Produce and consume at once; report send-to-receipt latency", exit_code);
}

}  // namespace spillway::cli
