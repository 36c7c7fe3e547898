// `spillway partition reassign|reassignments`: moving partitions between
// the brokers of a replicated cluster (spillway::Admin::
// alter_partition_reassignments, list_partition_reassignments;
// docs/operations.md, "Moving a partition").
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "spillway/admin.h"
#include "topic_name_check.h"

namespace spillway::cli {

namespace {

struct PartitionCommandOptions {
  std::string broker = kDefaultBroker;
  int timeout_ms = 10'000;
  std::string topic;
  std::vector<int32_t> partitions;
  std::vector<int32_t> replicas;
  bool cancel = false;
  int64_t throttle = 0;  // bytes per second, parsed from --throttle
  bool wait = false;
  int poll_ms = 1'000;
  int64_t wait_timeout_ms = 0;  // 0: no limit
};

std::string ids(const std::vector<int32_t>& list) {
  std::string out;
  for (int32_t id : list) {
    if (!out.empty()) out += ",";
    out += std::to_string(id);
  }
  return out.empty() ? "-" : out;
}

bool has(const std::vector<int32_t>& list, int32_t id) {
  for (int32_t x : list) {
    if (x == id) return true;
  }
  return false;
}

// "65536", "64KiB", "10MB", "1.5MiB/s": bytes per second. Units are
// Kafka's and the SI's: KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024.
std::string parse_rate(std::string& text, int64_t* out) {
  std::string s = text;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, "/s") == 0) s.resize(s.size() - 2);
  size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.')) {
    ++end;
  }
  if (end == 0) return "a number of bytes per second, e.g. 65536, 64KiB or 10MB";
  double value = 0;
  try {
    value = std::stod(s.substr(0, end));
  } catch (const std::exception&) {
    return "a number of bytes per second, e.g. 65536, 64KiB or 10MB";
  }
  const std::string unit = s.substr(end);
  double scale = 0;
  const std::pair<const char*, double> units[] = {
      {"", 1},     {"B", 1},         {"KB", 1e3},      {"MB", 1e6},
      {"GB", 1e9}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", double(1 << 30)},
      {"k", 1e3},  {"K", 1e3},       {"M", 1e6},       {"G", 1e9}};
  for (const auto& [name, factor] : units) {
    if (unit == name) scale = factor;
  }
  if (scale == 0) return "unknown unit '" + unit + "' (B, KB, MB, GB, KiB, MiB, GiB)";
  const double bytes = value * scale;
  if (bytes > 9e18) return "throttle too large";
  *out = static_cast<int64_t>(bytes);
  if (*out == 0 && value > 0) return "throttle below 1 byte per second";
  return {};
}

std::string rate_text(int64_t bytes_per_sec) {
  if (bytes_per_sec <= 0) return "unthrottled";
  return std::to_string(bytes_per_sec) + " B/s";
}

// Where a move stands, from the controller's steps (docs/operations.md).
std::string phase(const OngoingReassignment& m) {
  for (int32_t id : m.target) {
    if (!has(m.replicas, id)) return "adding replicas " + ids(m.target);
  }
  const std::vector<int32_t> behind = m.catching_up();
  if (!behind.empty()) return "copying the log to " + ids(behind) + " (not in sync yet)";
  for (int32_t id : m.target) {
    if (!has(m.isr, id)) return "waiting for " + std::to_string(id) + " to be in sync";
  }
  if (!has(m.target, m.leader)) return "moving the leadership into " + ids(m.target);
  return "removing " + ids(m.removing);
}

std::string describe(const OngoingReassignment& m) {
  return "replicas " + ids(m.replicas) + "  target " + ids(m.target) + "  adding " + ids(m.adding) +
         "  removing " + ids(m.removing) + "  isr " + ids(m.isr) + "  leader " +
         (m.leader < 0 ? std::string("none") : std::to_string(m.leader)) + "  " +
         rate_text(m.throttle_bytes_per_sec);
}

int fail(const char* what, const Status& st) {
  std::fprintf(stderr, "spillway partition %s: %s\n", what, std::string(st.message()).c_str());
  return 1;
}

// Polls until none of `partitions` of `topic` is being moved, printing each
// change of where a move stands; then checks the replicas they ended with.
int wait_for_moves(Admin& admin, const PartitionCommandOptions& o,
                   const std::vector<int32_t>& partitions) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  std::vector<std::string> last(partitions.size());
  for (;;) {
    Result<std::vector<OngoingReassignment>> moves = admin.list_partition_reassignments(o.topic);
    if (!moves.ok()) return fail("reassign", moves.status());
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start);
    bool any = false;
    for (size_t i = 0; i < partitions.size(); ++i) {
      for (const OngoingReassignment& m : *moves) {
        if (m.partition != partitions[i]) continue;
        any = true;
        const std::string now = phase(m);
        if (now != last[i]) {
          std::printf("%s-%d: %s (%llds; %s)\n", o.topic.c_str(), m.partition, now.c_str(),
                      static_cast<long long>(seconds.count()), describe(m).c_str());
          std::fflush(stdout);
          last[i] = now;
        }
      }
    }
    if (!any) break;
    if (o.wait_timeout_ms > 0 &&
        Clock::now() - start >= std::chrono::milliseconds(o.wait_timeout_ms)) {
      return fail("reassign", Status(ErrorCode::kTimeout,
                                     "the move is still in progress after --wait-timeout-ms " +
                                         std::to_string(o.wait_timeout_ms) +
                                         " ms (it goes on; see spillway partition reassignments)"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(o.poll_ms));
  }
  Result<ClusterDescription> cluster = admin.describe_cluster();
  if (!cluster.ok()) return fail("reassign", cluster.status());
  int code = 0;
  for (int32_t p : partitions) {
    for (const ClusterPartition& c : cluster->partitions) {
      if (c.topic != o.topic || c.partition != p) continue;
      if (!o.cancel && c.replicas != o.replicas) {
        std::fprintf(stderr,
                     "spillway partition reassign: %s-%d: the move ended with replicas %s, not %s "
                     "(changed or cancelled meanwhile)\n",
                     o.topic.c_str(), p, ids(c.replicas).c_str(), ids(o.replicas).c_str());
        code = 1;
        continue;
      }
      std::printf("%s-%d: done: replicas %s  isr %s  leader %s\n", o.topic.c_str(), p,
                  ids(c.replicas).c_str(), ids(c.isr).c_str(),
                  c.leader < 0 ? "none" : std::to_string(c.leader).c_str());
    }
  }
  return code;
}

int run_reassign(const PartitionCommandOptions& o) {
  Result<Admin> admin = Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
  if (!admin.ok()) return fail("reassign", admin.status());
  std::vector<PartitionReassignment> moves;
  for (int32_t p : o.partitions) {
    moves.push_back({.topic = o.topic,
                     .partition = p,
                     .replicas = o.cancel ? std::vector<int32_t>{} : o.replicas});
  }
  Result<std::vector<ReassignmentResult>> results =
      admin->alter_partition_reassignments(moves, o.throttle);
  if (!results.ok()) return fail("reassign", results.status());
  int code = 0;
  std::vector<int32_t> recorded;
  for (const ReassignmentResult& r : *results) {
    if (!r.status.ok()) {
      std::fprintf(stderr, "spillway partition reassign: %s-%d: %s\n", r.topic.c_str(), r.partition,
                   std::string(r.status.message()).c_str());
      code = 1;
      continue;
    }
    recorded.push_back(r.partition);
    if (o.cancel) {
      std::printf("%s-%d: cancelling the move (back to the replicas it started from)\n",
                  r.topic.c_str(), r.partition);
    } else {
      std::printf("%s-%d: reassigning to replicas %s (%s)\n", r.topic.c_str(), r.partition,
                  ids(o.replicas).c_str(), rate_text(o.throttle).c_str());
    }
  }
  std::fflush(stdout);
  if (code != 0 || !o.wait) return code;
  return wait_for_moves(*admin, o, recorded);
}

int run_list(const PartitionCommandOptions& o) {
  Result<Admin> admin = Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
  if (!admin.ok()) return fail("reassignments", admin.status());
  Result<std::vector<OngoingReassignment>> moves = admin->list_partition_reassignments(o.topic);
  if (!moves.ok()) return fail("reassignments", moves.status());
  if (moves->empty()) {
    std::printf("no partition moves in progress\n");
    return 0;
  }
  for (const OngoingReassignment& m : *moves) {
    std::printf("%s-%d  %s  [%s]\n", m.topic.c_str(), m.partition, describe(m).c_str(),
                phase(m).c_str());
  }
  return 0;
}

void add_common(CLI::App* cmd, PartitionCommandOptions* o) {
  cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")->capture_default_str();
  cmd->add_option("--timeout-ms", o->timeout_ms, "connect and response timeout")
      ->check(CLI::Range(1, 3'600'000))
      ->capture_default_str();
}

}  // namespace

void add_partition_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<PartitionCommandOptions>();
  CLI::App* partition =
      app.add_subcommand("partition", "Move partitions between the brokers of a cluster");
  partition->require_subcommand(1);

  CLI::App* reassign = partition->add_subcommand(
      "reassign",
      "Move a partition to other brokers (the controller adds the new replicas, waits until "
      "they are in sync, then drops the old ones), change a move's throttle, or cancel it");
  add_common(reassign, o.get());
  reassign->add_option("-t,--topic", o->topic, "topic")->required()->check(topic_name_check());
  reassign->add_option("-p,--partition", o->partitions, "partition(s), e.g. 0 or 0,1,2")
      ->required()
      ->delimiter(',')
      ->check(CLI::Range(0, 99'999));
  CLI::Option* replicas =
      reassign
          ->add_option("-r,--replicas", o->replicas,
                       "broker ids of the new replicas, preferred leader first, e.g. 2,3")
          ->delimiter(',')
          ->check(CLI::Range(0, INT32_MAX));
  CLI::Option* cancel = reassign->add_flag(
      "--cancel", o->cancel, "cancel the move in progress: back to the replicas it started from");
  replicas->excludes(cancel);
  reassign->add_option_function<std::string>(
      "--throttle",
      [o](const std::string& text) {
        std::string copy = text;
        if (std::string error = parse_rate(copy, &o->throttle); !error.empty()) {
          throw CLI::ValidationError("--throttle", error);
        }
      },
      "bytes per second the leaders may send to the new replicas while they catch up, e.g. "
      "10MB or 64KiB (0: unthrottled; asking again for a move in progress changes it)");
  reassign->add_flag("--wait", o->wait, "wait until the move is done, printing its progress");
  reassign->add_option("--poll-ms", o->poll_ms, "with --wait: how often to ask how the move stands")
      ->check(CLI::Range(10, 600'000))
      ->capture_default_str();
  reassign
      ->add_option("--wait-timeout-ms", o->wait_timeout_ms,
                   "with --wait: give up waiting after this long (0: no limit; the move goes on)")
      ->check(CLI::Range(int64_t{0}, INT64_MAX))
      ->capture_default_str();
  reassign->parse_complete_callback([o] {
    if (o->replicas.empty() && !o->cancel) {
      throw CLI::RequiredError("--replicas or --cancel");
    }
  });
  reassign->callback([o, exit_code] { *exit_code = run_reassign(*o); });

  CLI::App* list = partition->add_subcommand(
      "reassignments", "List the partition moves in progress and where each stands");
  add_common(list, o.get());
  list->add_option("-t,--topic", o->topic, "only this topic's")->check(topic_name_check());
  list->callback([o, exit_code] { *exit_code = run_list(*o); });
}

}  // namespace spillway::cli
