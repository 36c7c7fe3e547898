// `spillway consume TOPIC`: prints one value per line (optionally
// KEY<sep>VALUE), one JSON object per record (--output json, record_json.h)
// or each record through a kcat-style format (--format, record_format.h),
// from the topic's partitions through spillway::Consumer.
// Starts at the group's committed offset (else the beginning), or where
// --from-beginning / --offset say; with --group it commits as it goes and
// at exit. Ctrl-C ends it cleanly (after a final commit).
//
// --group without --partition makes the process a member of the consumer
// group (Consumer::subscribe): processes of one group share the topic's
// partitions, and a rebalance moves them when processes come and go. What
// is committed is always the offset after the last record printed, also
// when a rebalance takes a partition away (the listener below). SIGINT and
// SIGTERM commit and leave the group, so the others take over at once.
// --group with --partition reads that partition outside any membership and
// commits under the group.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "record_format.h"
#include "record_json.h"
#include "spillway/consumer.h"
#include "topic_name_check.h"

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
  int session_timeout_ms = 0;  // 0: the library's default
  std::string assignor = "cooperative-sticky";
  std::string output = "text";  // text or json
  std::string format;           // a RecordFormat; "" = --output decides
};

// How each record is printed.
class RecordPrinter {
 public:
  explicit RecordPrinter(const ConsumeCommandOptions& o) : options_(o) {
    // Checked when the command line was parsed.
    if (!o.format.empty()) format_.emplace(std::move(RecordFormat::parse(o.format)).value());
  }

  // Writes `record` to stdout. Error when its headers are malformed.
  Status print(const ConsumerRecord& record) {
    line_.clear();
    Status st;
    if (format_) {
      st = format_->append(record, &line_);
    } else if (options_.output == "json") {
      st = append_record_json(record, &line_);
    } else {
      if (options_.print_key) {
        line_ += record.key_string();
        line_ += options_.key_separator;
      }
      line_ += record.value_string();
      line_ += '\n';
    }
    if (!st.ok()) {
      return Status(st.code(), where(record) + ": " + std::string(st.message()));
    }
    std::fwrite(line_.data(), 1, line_.size(), stdout);
    return Status::Ok();
  }

 private:
  static std::string where(const ConsumerRecord& record) {
    return std::string(record.topic) + "/" + std::to_string(record.partition) + " offset " +
           std::to_string(record.offset);
  }

  const ConsumeCommandOptions& options_;
  std::optional<RecordFormat> format_;
  std::string line_;  // reused: one allocation for the longest record, not one per record
};

std::atomic<bool> g_interrupted{false};

void on_signal(int) {
  g_interrupted.store(true);
}

int fail(const Status& st) {
  std::fprintf(stderr, "spillway consume: %s\n", std::string(st.message()).c_str());
  return 1;
}

// Per partition: the offset after the last record printed, which is what
// a commit records (never past what was shown).
using Shown = std::vector<TopicPartitionOffset>;

// A subscribed process's listener: a partition taken away gets its printed
// offset committed and is forgotten, so later commits leave it to its new
// owner.
class CommitShownOnRevoke final : public RebalanceListener {
 public:
  explicit CommitShownOnRevoke(Shown& shown) : shown_(shown) {}
  void on_partitions_revoked(Consumer& consumer,
                             std::span<const TopicPartition> partitions) override {
    Shown revoked;
    std::erase_if(shown_, [&](const TopicPartitionOffset& s) {
      for (const TopicPartition& tp : partitions) {
        if (tp.topic == s.topic && tp.partition == s.partition) {
          revoked.push_back(s);
          return true;
        }
      }
      return false;
    });
    if (revoked.empty()) return;
    if (Status st = consumer.commit(revoked); !st.ok()) {
      std::fprintf(stderr, "spillway consume: commit on revocation: %s\n",
                   std::string(st.message()).c_str());
    }
  }

 private:
  Shown& shown_;
};

int run_consume(const ConsumeCommandOptions& o) {
  const bool member = !o.group.empty() && o.partition < 0;
  if (member && (o.from_beginning || o.offset >= 0)) {
    return fail(Status(ErrorCode::kInvalidArgument,
                       "--group shares the partitions with the group's other members, which "
                       "start at its committed offsets; --from-beginning and --offset need "
                       "--partition"));
  }
  ConsumerOptions co;
  co.bootstrap = o.broker;
  co.security = cli_security();
  co.group_id = o.group;
  co.fetch_max_wait = std::chrono::milliseconds(200);
  if (o.session_timeout_ms > 0) {
    co.session_timeout = std::chrono::milliseconds(o.session_timeout_ms);
    // A third of the session, at most the default: a rebalance waits for
    // members to hear of it through a heartbeat.
    co.heartbeat_interval = std::min(
        co.heartbeat_interval, std::chrono::milliseconds(std::max(1, o.session_timeout_ms / 3)));
  }
  if (o.assignor == "range") co.assignor = GroupAssignor::kRange;
  Result<std::unique_ptr<Consumer>> created = Consumer::create(co);
  if (!created.ok()) return fail(created.status());
  Consumer& consumer = **created;
  Shown shown;
  Status st;
  if (member) {
    st = consumer.subscribe({o.topic}, std::make_shared<CommitShownOnRevoke>(shown));
  } else {
    std::vector<int32_t> parts;
    if (o.partition >= 0) parts.push_back(o.partition);
    st = consumer.assign(o.topic, parts);
  }
  if (!st.ok()) return fail(st);
  Result<TopicDescription> described = consumer.describe(o.topic);
  if (!described.ok()) return fail(described.status());
  // Partitions read, with the high watermark seen now (for --exit-at-end).
  std::vector<std::pair<int32_t, int64_t>> ends;
  for (const PartitionDescription& p : described->partitions) {
    if (o.partition >= 0 && p.partition != o.partition) continue;
    ends.emplace_back(p.partition, p.high_watermark);
    if (member) continue;
    if (o.from_beginning) st = consumer.seek_to_beginning(o.topic, p.partition);
    if (o.offset >= 0) st = consumer.seek(o.topic, p.partition, o.offset);
    if (!st.ok()) return fail(st);
  }

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  auto commit_shown = [&]() -> Status {
    if (o.group.empty() || shown.empty()) return Status::Ok();
    Status committed = consumer.commit(shown);
    // A member's commit refused by the group (a rebalance moved on without
    // it, or it is rejoining): not fatal. The next poll rejoins; what was
    // printed but not committed is read again by the partition's owner.
    const ErrorCode code = committed.code();
    if (member &&
        (code == ErrorCode::kRebalanceInProgress || code == ErrorCode::kIllegalGeneration ||
         code == ErrorCode::kUnknownMember || code == ErrorCode::kFencedInstanceId)) {
      std::fprintf(stderr, "spillway consume: commit refused, rejoining the group: %s\n",
                   std::string(committed.message()).c_str());
      return Status::Ok();
    }
    return committed;
  };
  RecordPrinter printer(o);
  int64_t printed = 0;
  auto last_data = std::chrono::steady_clock::now();
  int rc = 0;
  for (;;) {
    if (g_interrupted.load() || (o.count >= 0 && printed >= o.count)) break;
    if (o.exit_at_end) {
      // A member checks the partitions the group gave it.
      const std::vector<TopicPartition> reading = consumer.assignment();
      bool caught_up = !reading.empty();
      for (const auto& [p, end] : ends) {
        if (member && std::find(reading.begin(), reading.end(), TopicPartition{o.topic, p}) ==
                          reading.end()) {
          continue;
        }
        Result<int64_t> pos = consumer.position(o.topic, p);
        if (!pos.ok() || *pos < end) caught_up = false;
      }
      if (caught_up) break;
    }
    Result<ConsumerRecords> records = consumer.poll(std::chrono::milliseconds(200));
    if (!records.ok()) {
      // A member rides out a broker restart: the next poll reconnects and
      // rejoins; nothing printed is lost, and what was not committed is
      // read again.
      if (member && !g_interrupted.load() &&
          (records.status().code() == ErrorCode::kNotConnected ||
           records.status().code() == ErrorCode::kTimeout ||
           records.status().code() == ErrorCode::kShuttingDown)) {
        continue;
      }
      rc = fail(records.status());
      break;
    }
    for (const ConsumerRecord& r : *records) {
      if (o.count >= 0 && printed >= o.count) break;
      st = printer.print(r);
      if (!st.ok()) break;
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
    if (!st.ok()) {
      rc = fail(st);  // what was printed before the malformed record is committed below
      break;
    }
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
  if (member) {
    // Leaves the group; the listener has nothing left to commit.
    shown.clear();
    st = consumer.close();
    if (!st.ok() && rc == 0) rc = fail(st);
  }
  std::fflush(stdout);
  return rc;
}

}  // namespace

void add_consume_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ConsumeCommandOptions>();
  CLI::App* cmd = app.add_subcommand("consume", "Print a topic's messages, one value per line");
  cmd->add_option("topic", o->topic, "topic name")->required()->check(topic_name_check());
  cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")->capture_default_str();
  CLI::Option* begin = cmd->add_flag("--from-beginning", o->from_beginning,
                                     "start at each partition's first record");
  cmd->add_option("--offset", o->offset, "start at this offset in every partition read")
      ->check(CLI::Range(int64_t{0}, INT64_MAX))
      ->excludes(begin);
  cmd->add_option("-g,--group", o->group,
                  "consumer group: join it and share the partitions with its other members "
                  "(with --partition: read that partition outside the membership); start at "
                  "its committed offsets, commit as records are printed");
  cmd->add_option(
         "--session-timeout-ms", o->session_timeout_ms,
         "with --group: the member's session timeout (heartbeats every third, at most 3 s)")
      ->check(CLI::Range(1, 3'600'000));
  cmd->add_option("--assignor", o->assignor, "with --group: range or cooperative-sticky")
      ->check(CLI::IsMember({"range", "cooperative-sticky"}))
      ->capture_default_str();
  cmd->add_option("-p,--partition", o->partition, "read only this partition (default: all)")
      ->check(CLI::Range(0, 1'000'000));
  cmd->add_option("-n,--count", o->count, "exit after printing this many messages")
      ->check(CLI::Range(int64_t{0}, INT64_MAX));
  cmd->add_flag("--exit-at-end", o->exit_at_end,
                "exit once caught up to the high watermarks seen at start");
  CLI::Option* print_key = cmd->add_flag("--print-key", o->print_key, "print KEY<sep>VALUE");
  cmd->add_option("-k,--key-separator", o->key_separator, "separator for --print-key")
      ->capture_default_str();
  CLI::Option* output =
      cmd->add_option("-o,--output", o->output,
                      "text: one value per line; json: one JSON object per record per line "
                      "(topic, partition, offset, timestamp, key, value, headers; bytes that "
                      "are not UTF-8 in base64, with \"<field>_encoding\":\"base64\")")
          ->check(CLI::IsMember({"text", "json"}))
          ->capture_default_str();
  cmd->add_option("--format", o->format,
                  "print each record through this kcat-style format: %t topic, %p partition, "
                  "%o offset, %T timestamp (ms), %k key, %s value, %h headers (n=v,...), "
                  "%K / %S key / value length, %% a %; escapes \\n \\t \\r \\0 \\\\")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            Result<RecordFormat> format = RecordFormat::parse(text);
            return format.ok() ? std::string() : std::string(format.status().message());
          },
          "FORMAT", "record format"))
      ->excludes(output)
      ->excludes(print_key);
  cmd->add_option("--timeout-ms", o->timeout_ms, "exit 1 if no message arrives for this long")
      ->check(CLI::Range(0, 86'400'000));
  cmd->callback([o, exit_code] {
    if (o->output == "json" && o->print_key) {
      throw CLI::ValidationError("--print-key",
                                 "is for --output text: every JSON record carries its key");
    }
    *exit_code = run_consume(*o);
  });
}

}  // namespace spillway::cli
