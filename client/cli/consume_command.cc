// `spillway consume TOPIC`: prints one value per line (optionally
// KEY<sep>VALUE) from the topic's partitions through spillway::Consumer.
// Starts at the group's committed offset (else the beginning), or where
// --from-beginning / --offset say; with --group it commits as it goes and
// at exit. Ctrl-C ends it cleanly (after a final commit).
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "spillway/consumer.h"

namespace spillway::cli {

namespace {

struct ConsumeCommandOptions {
  std::string broker = kDefaultBroker;
  std::string topic;
  bool from_beginning = false;
  int64_t offset = -1;
  std::string group;
  int partition = -1;
  int64_t count = -1;
  bool exit_at_end = false;
  bool print_key = false;
  std::string key_separator = "\t";
  int timeout_ms = -1;
};

std::atomic<bool> g_interrupted{false};

void on_signal(int) {
  g_interrupted.store(true);
}

int fail(const Status& st) {
  std::fprintf(stderr, "spillway consume: %s\n", std::string(st.message()).c_str());
  return 1;
}

int run_consume(const ConsumeCommandOptions& o) {
  ConsumerOptions co;
  co.bootstrap = o.broker;
  co.group_id = o.group;
  co.fetch_max_wait = std::chrono::milliseconds(200);
  Result<std::unique_ptr<Consumer>> created = Consumer::create(co);
  if (!created.ok()) return fail(created.status());
  Consumer& consumer = **created;
  std::vector<int32_t> parts;
  if (o.partition >= 0) parts.push_back(o.partition);
  Status st = consumer.assign(o.topic, parts);
  if (!st.ok()) return fail(st);
  Result<TopicDescription> described = consumer.describe(o.topic);
  if (!described.ok()) return fail(described.status());
  // Partitions read, with the high watermark seen now (for --exit-at-end).
  std::vector<std::pair<int32_t, int64_t>> ends;
  for (const PartitionDescription& p : described->partitions) {
    if (o.partition >= 0 && p.partition != o.partition) continue;
    ends.emplace_back(p.partition, p.high_watermark);
    if (o.from_beginning) st = consumer.seek_to_beginning(o.topic, p.partition);
    if (o.offset >= 0) st = consumer.seek(o.topic, p.partition, o.offset);
    if (!st.ok()) return fail(st);
  }

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  // Per partition: the offset after the last record printed, which is what
  // a commit records (never past what was shown).
  std::vector<TopicPartitionOffset> shown;
  auto commit_shown = [&]() -> Status {
    if (o.group.empty() || shown.empty()) return Status::Ok();
    return consumer.commit(shown);
  };
  int64_t printed = 0;
  auto last_data = std::chrono::steady_clock::now();
  int rc = 0;
  for (;;) {
    if (g_interrupted.load() || (o.count >= 0 && printed >= o.count)) break;
    if (o.exit_at_end) {
      bool caught_up = true;
      for (const auto& [p, end] : ends) {
        Result<int64_t> pos = consumer.position(o.topic, p);
        if (!pos.ok() || *pos < end) caught_up = false;
      }
      if (caught_up) break;
    }
    Result<ConsumerRecords> records = consumer.poll(std::chrono::milliseconds(200));
    if (!records.ok()) {
      rc = fail(records.status());
      break;
    }
    for (const ConsumerRecord& r : *records) {
      if (o.count >= 0 && printed >= o.count) break;
      if (o.print_key) {
        std::fwrite(r.key.data(), 1, r.key.size(), stdout);
        std::fwrite(o.key_separator.data(), 1, o.key_separator.size(), stdout);
      }
      std::fwrite(r.value.data(), 1, r.value.size(), stdout);
      std::fputc('\n', stdout);
      ++printed;
      TopicPartitionOffset* at = nullptr;
      for (TopicPartitionOffset& s : shown) {
        if (s.partition == r.partition) at = &s;
      }
      if (!at)
        at = &shown.emplace_back(
            TopicPartitionOffset{.topic = o.topic, .partition = r.partition, .offset = 0});
      at->offset = r.offset + 1;
    }
    std::fflush(stdout);
    const auto now = std::chrono::steady_clock::now();
    if (!records->empty()) {
      last_data = now;
      st = commit_shown();
      if (!st.ok()) {
        rc = fail(st);
        break;
      }
    } else if (o.timeout_ms >= 0 && now - last_data >= std::chrono::milliseconds(o.timeout_ms)) {
      std::fprintf(stderr, "spillway consume: no message for %d ms\n", o.timeout_ms);
      rc = 1;
      break;
    }
  }
  if (rc == 0) {
    st = commit_shown();
    if (!st.ok()) rc = fail(st);
  }
  std::fflush(stdout);
  return rc;
}

}  // namespace

void add_consume_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ConsumeCommandOptions>();
  CLI::App* cmd = app.add_subcommand("consume", "Print a topic's messages, one value per line");
  cmd->add_option("topic", o->topic, "topic name")->required();
  cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")->capture_default_str();
  CLI::Option* begin = cmd->add_flag("--from-beginning", o->from_beginning,
                                     "start at each partition's first record");
  cmd->add_option("--offset", o->offset, "start at this offset in every partition read")
      ->check(CLI::Range(int64_t{0}, INT64_MAX))
      ->excludes(begin);
  cmd->add_option("-g,--group", o->group,
                  "consumer group: start at its committed offsets, commit as records are printed");
  cmd->add_option("-p,--partition", o->partition, "read only this partition (default: all)")
      ->check(CLI::Range(0, 1'000'000));
  cmd->add_option("-n,--count", o->count, "exit after printing this many messages")
      ->check(CLI::Range(int64_t{0}, INT64_MAX));
  cmd->add_flag("--exit-at-end", o->exit_at_end,
                "exit once caught up to the high watermarks seen at start");
  cmd->add_flag("--print-key", o->print_key, "print KEY<sep>VALUE");
  cmd->add_option("-k,--key-separator", o->key_separator, "separator for --print-key")
      ->capture_default_str();
  cmd->add_option("--timeout-ms", o->timeout_ms, "exit 1 if no message arrives for this long")
      ->check(CLI::Range(0, 86'400'000));
  cmd->callback([o, exit_code] { *exit_code = run_consume(*o); });
}

}  // namespace spillway::cli
