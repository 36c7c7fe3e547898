// `spillway produce TOPIC`: one message per input line (stdin or --file),
// optionally "KEY<sep>VALUE", or one message holding a file's bytes
// (--value-file, for binary values), through spillway::Producer; --key sets
// every record's key, -H name=value adds a header to every record. Exit 0
// only if every message was acknowledged.
//
// It retries through broker outages for as long as --timeout-ms allows. A
// record that still fails fences its partition (see spillway/producer.h), so
// no later line of that partition is stored after it; the command stops
// reading at the first failure and names the first line not acknowledged,
// from which `tail -n +LINE` resumes in order.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "spillway/admin.h"
#include "spillway/producer.h"
#include "topic_name_check.h"
#include "value_file.h"

namespace spillway::cli {

namespace {

struct ProduceCommandOptions {
  std::string broker = kDefaultBroker;
  std::string topic;
  std::string file;
  std::string key_separator;
  std::string value_file;
  std::string key;                   // every record's key; "" = none
  std::vector<std::string> headers;  // "name=value", checked when parsed
  bool null_key = false;             // what no --key means already; stated for scripts
  int partition = -1;
  DeliveryFlags delivery;
  int linger_ms = 5;
  int batch_bytes = 256 << 10;
  int timeout_ms = 30'000;
};

class Tally;

// The input line a record came from: its delivery callback's context.
struct LineSlot {
  Tally* tally = nullptr;
  uint64_t line = 0;
  LineSlot* next_free = nullptr;
};

// Outcomes per input line. Slots are recycled through a free list, so the
// pool grows to the most records pending at once, not with the input.
// Completions run on the producer's I/O thread (or inside send()).
class Tally {
 public:
  // A slot for 1-based input line `line`.
  LineSlot* take(uint64_t line) {
    std::lock_guard lk(mu_);
    LineSlot* slot = free_;
    if (slot) {
      free_ = slot->next_free;
    } else {
      slot = slots_.emplace_back(std::make_unique<LineSlot>()).get();
      slot->tally = this;
    }
    slot->line = line;
    return slot;
  }

  static void on_delivery(void* context, const Status& st, const RecordMetadata&) {
    auto* slot = static_cast<LineSlot*>(context);
    Tally& t = *slot->tally;
    std::lock_guard lk(t.mu_);
    if (st.ok()) {
      ++t.acked_;
    } else {
      t.any_failed_.store(true, std::memory_order_relaxed);
      if (slot->line < t.first_failed_line_) {
        t.first_failed_line_ = slot->line;
        t.first_failed_error_ = st.to_string();
      }
    }
    slot->next_free = t.free_;
    t.free_ = slot;
  }

  bool any_failed() const { return any_failed_.load(std::memory_order_relaxed); }
  // After the producer closed (every record completed):
  uint64_t acked() {
    std::lock_guard lk(mu_);
    return acked_;
  }
  uint64_t first_failed_line() {
    std::lock_guard lk(mu_);
    return first_failed_line_;
  }
  std::string first_failed_error() {
    std::lock_guard lk(mu_);
    return first_failed_error_;
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<LineSlot>> slots_;
  LineSlot* free_ = nullptr;
  uint64_t acked_ = 0;
  uint64_t first_failed_line_ = UINT64_MAX;
  std::string first_failed_error_;
  std::atomic<bool> any_failed_{false};
};

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// Checks the broker and the topic first, for a quick and clear error. A
// broker that refuses connections (restarting) is asked again until the
// timeout ends, as the producer would.
Status check_topic(const ProduceCommandOptions& o) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.timeout_ms);
  for (;;) {
    Result<Admin> admin = Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
    Result<TopicDescription> topic =
        admin.ok() ? admin->describe_topic(o.topic) : Result<TopicDescription>(admin.status());
    if (topic.ok()) {
      if (o.partition >= 0 && static_cast<size_t>(o.partition) >= topic->partitions.size()) {
        return Status(ErrorCode::kUnknownPartition,
                      "topic '" + o.topic + "' has " + std::to_string(topic->partitions.size()) +
                          " partitions, no partition " + std::to_string(o.partition));
      }
      return Status::Ok();
    }
    const ErrorCode code = topic.status().code();
    if ((code != ErrorCode::kNotConnected && code != ErrorCode::kShuttingDown) ||
        std::chrono::steady_clock::now() >= deadline) {
      return topic.status();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int run_produce(const ProduceCommandOptions& o) {
  if (Status st = check_topic(o); !st.ok()) {
    std::fprintf(stderr, "spillway produce: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  // The whole record must fit the largest one a Producer takes: checked
  // before the file is read.
  size_t fixed_bytes = o.key.size();
  for (const std::string& h : o.headers) fixed_bytes += h.size();
  Result<std::vector<std::byte>> value = std::vector<std::byte>();
  if (!o.value_file.empty()) {
    value = read_value_file(
        o.value_file, Producer::kMaxRecordBytes - std::min(fixed_bytes, Producer::kMaxRecordBytes));
    if (!value.ok()) {
      std::fprintf(stderr, "spillway produce: %s\n", std::string(value.status().message()).c_str());
      return 1;
    }
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  if (!o.file.empty()) {
    file.open(o.file);
    if (!file) {
      std::fprintf(stderr, "spillway produce: cannot open '%s'\n", o.file.c_str());
      return 1;
    }
    in = &file;
  }
  ProducerOptions po;
  po.bootstrap = o.broker;
  po.security = cli_security();
  o.delivery.apply(&po);
  po.linger = std::chrono::milliseconds(o.linger_ms);
  po.batch_bytes = static_cast<size_t>(o.batch_bytes);
  // Retry for as long as the timeout allows: an outage shorter than it
  // loses nothing. Requests and connects give up no later than it.
  po.delivery_timeout = std::chrono::milliseconds(o.timeout_ms);
  po.retries = INT_MAX;
  po.request_timeout = std::min(po.request_timeout, po.delivery_timeout);
  po.connect_timeout = std::min(po.connect_timeout, po.delivery_timeout);
  Result<std::unique_ptr<Producer>> producer = Producer::create(po);
  if (!producer.ok()) {
    std::fprintf(stderr, "spillway produce: %s\n",
                 std::string(producer.status().message()).c_str());
    return 1;
  }
  // -H name=value: the same headers on every record.
  std::vector<Header> headers;
  for (const std::string& h : o.headers) {
    const size_t eq = h.find('=');
    headers.push_back({.key = std::string_view(h).substr(0, eq),
                       .value = bytes_of(std::string_view(h).substr(eq + 1))});
  }
  Tally tally;
  if (!o.value_file.empty()) {
    (*producer)->send(o.topic, bytes_of(o.key), *value, headers,
                      {&Tally::on_delivery, tally.take(1)}, o.partition);
    (void)(*producer)->close();
    if (tally.any_failed()) {
      std::fprintf(stderr, "spillway produce: %s was not acknowledged: %s\n", o.value_file.c_str(),
                   tally.first_failed_error().c_str());
      return 1;
    }
    std::fprintf(stderr, "produced 1 message (%zu bytes) to %s\n", value->size(), o.topic.c_str());
    return 0;
  }
  uint64_t line_number = 0;
  std::string line;
  while (!tally.any_failed() && std::getline(*in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view key = o.key, value = line;
    if (!o.key_separator.empty()) {
      const size_t at = line.find(o.key_separator);
      if (at != std::string::npos) {
        key = std::string_view(line).substr(0, at);
        value = std::string_view(line).substr(at + o.key_separator.size());
      }
    }
    (*producer)->send(o.topic, bytes_of(key), bytes_of(value), headers,
                      {&Tally::on_delivery, tally.take(line_number)}, o.partition);
  }
  (void)(*producer)->close();  // every record has completed when it returns
  const uint64_t acked = tally.acked();
  if (!tally.any_failed()) {
    std::fprintf(stderr, "produced %llu messages to %s\n", static_cast<unsigned long long>(acked),
                 o.topic.c_str());
    return 0;
  }
  // Every line before the first failed one was acknowledged; lines after it
  // may have been too, in other partitions.
  const uint64_t first = tally.first_failed_line();
  const uint64_t stored_after = acked - (first - 1);
  std::fprintf(stderr, "spillway produce: stopped at line %llu, the first not acknowledged: %s\n",
               static_cast<unsigned long long>(first), tally.first_failed_error().c_str());
  const std::string stored = first == 1 ? "no line before it is stored"
                             : first == 2
                                 ? "line 1 is stored"
                                 : "lines 1 to " + std::to_string(first - 1) + " are stored";
  std::fprintf(stderr,
               "spillway produce: %s; resume in order with `tail -n +%llu %s | spillway produce "
               "%s ...`\n",
               stored.c_str(), static_cast<unsigned long long>(first),
               o.file.empty() ? "INPUT" : o.file.c_str(), o.topic.c_str());
  if (stored_after > 0) {
    std::fprintf(stderr,
                 "spillway produce: %llu later lines (other partitions) were stored too; "
                 "resuming sends them again\n",
                 static_cast<unsigned long long>(stored_after));
  }
  return 1;
}

}  // namespace

void add_produce_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ProduceCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "produce", "Send one message per input line to a topic (KEY<sep>VALUE with --key-separator)");
  cmd->add_option("topic", o->topic, "topic name")->required()->check(topic_name_check());
  cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")->capture_default_str();
  CLI::Option* file =
      cmd->add_option("-f,--file", o->file, "read lines from this file (default: stdin)");
  CLI::Option* separator =
      cmd->add_option("-k,--key-separator", o->key_separator,
                      "split each line at the first SEP into key and value (no SEP: no key)");
  cmd->add_option("--value-file", o->value_file,
                  "send ONE message whose value is this file's bytes, whatever they are (at "
                  "most about 1 MiB with key and headers)")
      ->excludes(file)
      ->excludes(separator);
  CLI::Option* key =
      cmd->add_option("--key", o->key,
                      "the key of every message (lines without a --key-separator split, or "
                      "--value-file's); default: none");
  cmd->add_flag("--null-key", o->null_key,
                "send every message with a null key, as without --key (the native protocol "
                "has no empty keys: an empty key is null)")
      ->excludes(key)
      ->excludes(separator);
  cmd->add_option("-H,--header", o->headers,
                  "add the header NAME=VALUE to every message (repeatable, at most 64)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const size_t eq = text.find('=');
            if (eq == std::string::npos || eq == 0) return "expected NAME=VALUE";
            if (eq > UINT16_MAX) return "the header name is longer than 65535 bytes";
            return "";
          },
          "NAME=VALUE", "header"))
      ->allow_extra_args(false);
  cmd->add_option("-p,--partition", o->partition,
                  "send every message to this partition (default: by key, keyless sticky)")
      ->check(CLI::Range(0, 1'000'000));
  o->delivery.add_to(
      cmd, "none, leader (after append), durable (after fsync) or all (every in-sync replica)",
      "none or zstd");
  cmd->add_option("--linger-ms", o->linger_ms, "wait this long for a batch to fill")
      ->check(CLI::Range(0, 60'000))
      ->capture_default_str();
  cmd->add_option("--batch-bytes", o->batch_bytes, "send a partition's batch at this size")
      ->check(CLI::Range(1, 16 << 20))
      ->capture_default_str();
  cmd->add_option("--timeout-ms", o->timeout_ms,
                  "how long a message may wait for its acknowledgement, retrying through "
                  "broker outages; also bounds the connect")
      ->check(CLI::Range(1, 3'600'000))
      ->capture_default_str();
  cmd->callback([o, exit_code] {
    if (o->headers.size() > Producer::kMaxHeaders) {
      throw CLI::ValidationError("-H,--header", "at most " + std::to_string(Producer::kMaxHeaders) +
                                                    " headers per message");
    }
    *exit_code = run_produce(*o);
  });
}

}  // namespace spillway::cli
