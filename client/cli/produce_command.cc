// `spillway produce TOPIC`: one message per input line (stdin or --file),
// optionally "KEY<sep>VALUE", through spillway::Producer. Exit 0 only if
// every message was acknowledged.
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>

#include "commands.h"
#include "spillway/admin.h"
#include "spillway/producer.h"

namespace spillway::cli {

namespace {

struct ProduceCommandOptions {
  std::string broker = kDefaultBroker;
  std::string topic;
  std::string file;
  std::string key_separator;
  int partition = -1;
  std::string acks = "leader";
  std::string compression = "none";
  int linger_ms = 5;
  int batch_bytes = 256 << 10;
  int timeout_ms = 30'000;
};

// Outcomes, written by the producer's I/O thread.
struct Tally {
  std::atomic<uint64_t> acked{0};
  std::atomic<uint64_t> failed{0};
  std::mutex mu;
  std::string first_error;
};

void on_delivery(void* context, const Status& st, const RecordMetadata&) {
  auto* tally = static_cast<Tally*>(context);
  if (st.ok()) {
    tally->acked.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  tally->failed.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lk(tally->mu);
  if (tally->first_error.empty()) tally->first_error = std::string(st.message());
}

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

int run_produce(const ProduceCommandOptions& o) {
  // Check the broker and the topic first, for a quick and clear error.
  {
    Result<Admin> admin = Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
    Result<TopicDescription> topic =
        admin.ok() ? admin->describe_topic(o.topic) : Result<TopicDescription>(admin.status());
    if (!topic.ok()) {
      std::fprintf(stderr, "spillway produce: %s\n", std::string(topic.status().message()).c_str());
      return 1;
    }
    if (o.partition >= 0 && static_cast<size_t>(o.partition) >= topic->partitions.size()) {
      std::fprintf(stderr, "spillway produce: topic '%s' has %zu partitions, no partition %d\n",
                   o.topic.c_str(), topic->partitions.size(), o.partition);
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
  po.acks = o.acks == "none" ? Acks::kNone : o.acks == "durable" ? Acks::kDurable : Acks::kLeader;
  po.compression =
      o.compression == "zstd" ? ProducerCompression::kZstd : ProducerCompression::kNone;
  po.linger = std::chrono::milliseconds(o.linger_ms);
  po.batch_bytes = static_cast<size_t>(o.batch_bytes);
  po.delivery_timeout = std::chrono::milliseconds(o.timeout_ms);
  Result<std::unique_ptr<Producer>> producer = Producer::create(po);
  if (!producer.ok()) {
    std::fprintf(stderr, "spillway produce: %s\n",
                 std::string(producer.status().message()).c_str());
    return 1;
  }
  Tally tally;
  uint64_t sent = 0;
  std::string line;
  while (std::getline(*in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view key, value = line;
    if (!o.key_separator.empty()) {
      const size_t at = line.find(o.key_separator);
      if (at != std::string::npos) {
        key = std::string_view(line).substr(0, at);
        value = std::string_view(line).substr(at + o.key_separator.size());
      }
    }
    (*producer)->send(o.topic, bytes_of(key), bytes_of(value), {}, {&on_delivery, &tally},
                      o.partition);
    ++sent;
    if (tally.failed.load(std::memory_order_relaxed) > 0) break;  // stop at the first failure
  }
  (void)(*producer)->close();
  const uint64_t failed = tally.failed.load();
  const uint64_t acked = tally.acked.load();
  if (failed > 0 || acked != sent) {
    std::fprintf(stderr, "spillway produce: %llu of %llu messages failed: %s\n",
                 static_cast<unsigned long long>(sent - acked),
                 static_cast<unsigned long long>(sent), tally.first_error.c_str());
    return 1;
  }
  std::fprintf(stderr, "produced %llu messages to %s\n", static_cast<unsigned long long>(acked),
               o.topic.c_str());
  return 0;
}

}  // namespace

void add_produce_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ProduceCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "produce", "Send one message per input line to a topic (KEY<sep>VALUE with --key-separator)");
  cmd->add_option("topic", o->topic, "topic name")->required();
  cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")->capture_default_str();
  cmd->add_option("-f,--file", o->file, "read lines from this file (default: stdin)");
  cmd->add_option("-k,--key-separator", o->key_separator,
                  "split each line at the first SEP into key and value (no SEP: no key)");
  cmd->add_option("-p,--partition", o->partition,
                  "send every message to this partition (default: by key, keyless sticky)")
      ->check(CLI::Range(0, 1'000'000));
  cmd->add_option("--acks", o->acks, "none, leader (after append) or durable (after fsync)")
      ->check(CLI::IsMember({"none", "leader", "durable"}))
      ->capture_default_str();
  cmd->add_option("--compression", o->compression, "none or zstd")
      ->check(CLI::IsMember({"none", "zstd"}))
      ->capture_default_str();
  cmd->add_option("--linger-ms", o->linger_ms, "wait this long for a batch to fill")
      ->check(CLI::Range(0, 60'000))
      ->capture_default_str();
  cmd->add_option("--batch-bytes", o->batch_bytes, "send a partition's batch at this size")
      ->check(CLI::Range(1, 16 << 20))
      ->capture_default_str();
  cmd->add_option("--timeout-ms", o->timeout_ms,
                  "connect timeout, and how long a message may wait for its acknowledgement")
      ->check(CLI::Range(1, 3'600'000))
      ->capture_default_str();
  cmd->callback([o, exit_code] { *exit_code = run_produce(*o); });
}

}  // namespace spillway::cli
