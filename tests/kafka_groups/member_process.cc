#include "member_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace spillway::testing {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<int32_t> parse_partitions(const std::string& text) {
  std::set<int32_t> out;
  if (text == "-") return out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.insert(std::stoi(item));
  return out;
}

}  // namespace

MemberProcess::MemberProcess(const std::filesystem::path& dir, std::string name, MemberOptions o)
    : name_(std::move(name)),
      records_(dir / (name_ + ".records")),
      events_(dir / (name_ + ".events")),
      log_(dir / (name_ + ".log")) {
  std::vector<std::string> args = {SPILLWAY_GROUP_MEMBER_BINARY,
                                   "--bootstrap",
                                   o.bootstrap,
                                   "--topic",
                                   o.topic,
                                   "--group",
                                   o.group,
                                   "--strategy",
                                   o.strategy,
                                   "--records",
                                   records_.string(),
                                   "--events",
                                   events_.string()};
  if (o.instance_id) args.insert(args.end(), {"--instance-id", *o.instance_id});
  if (o.session_timeout_ms) {
    args.insert(args.end(), {"--session-timeout-ms", std::to_string(*o.session_timeout_ms)});
  }
  if (o.heartbeat_ms) args.insert(args.end(), {"--heartbeat-ms", std::to_string(*o.heartbeat_ms)});
  if (o.process_us > 0) args.insert(args.end(), {"--process-us", std::to_string(o.process_us)});
  if (o.revoke_delay_ms > 0) {
    args.insert(args.end(), {"--revoke-delay-ms", std::to_string(o.revoke_delay_ms)});
  }
  // SPILLWAY_GROUP_MEMBER_DEBUG: librdkafka's group debug log from every
  // member (to DIR/NAME.log), for a failure that needs it.
  if (o.debug || std::getenv("SPILLWAY_GROUP_MEMBER_DEBUG") != nullptr) {
    args.emplace_back("--debug");
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int log_fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  pid_ = ::fork();
  if (pid_ == 0) {
    if (log_fd >= 0) {
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  if (log_fd >= 0) ::close(log_fd);
}

MemberProcess::~MemberProcess() {
  if (running()) stop(SIGKILL);
}

std::string MemberProcess::exited() const {
  if (pid_ <= 0 || !exited_.empty()) return exited_;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    exited_ = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                : "signal " + std::to_string(WTERMSIG(status));
  }
  return exited_;
}

int64_t MemberProcess::stop(int signal) {
  const int64_t sent = now_ms();
  if (pid_ <= 0) return sent;
  if (!exited().empty()) {
    pid_ = -1;
    return sent;
  }
  ::kill(pid_, signal);
  // Bounded wait for the exit (a clean close takes a commit and a
  // LeaveGroup); a guard, not a timing.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return sent;
}

std::vector<MemberEvent> MemberProcess::events() const {
  std::vector<MemberEvent> out;
  std::stringstream in(read_file(events_));
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    MemberEvent e;
    if (!(fields >> e.ms >> e.kind)) continue;
    std::getline(fields >> std::ws, e.rest);
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<std::set<int32_t>> MemberProcess::assignment() const {
  std::optional<std::set<int32_t>> out;
  for (const MemberEvent& e : events()) {
    if (e.kind == "START") out.reset();  // a restarted member starts empty
    if (e.kind == "ASSIGNMENT") out = parse_partitions(e.rest);
  }
  return out;
}

std::optional<int32_t> MemberProcess::generation() const {
  std::optional<int32_t> out;
  for (const MemberEvent& e : events()) {
    if (e.kind == "START") out.reset();
    if (e.kind == "GENERATION") out = std::stoi(e.rest);
  }
  return out;
}

std::string MemberProcess::member_id() const {
  std::string out;
  for (const MemberEvent& e : events()) {
    if (e.kind == "START") out.clear();
    if (e.kind == "GENERATION") out = e.rest.substr(e.rest.find(' ') + 1);
  }
  return out;
}

size_t MemberProcess::count(const std::string& kind, int64_t since_ms) const {
  size_t n = 0;
  for (const MemberEvent& e : events()) n += e.kind == kind && e.ms >= since_ms;
  return n;
}

std::vector<std::pair<int32_t, int64_t>> MemberProcess::first_consumed(int64_t since_ms) const {
  std::vector<std::pair<int32_t, int64_t>> out;
  std::set<int32_t> seen;
  for (const MemberEvent& e : events()) {
    if (e.kind != "CONSUMED" || e.ms < since_ms) continue;
    const int32_t p = std::stoi(e.rest);
    if (seen.insert(p).second) out.emplace_back(p, e.ms);
  }
  return out;
}

std::string MemberProcess::log() const {
  return read_file(log_);
}

bool shares_cover(const std::vector<const MemberProcess*>& members, int32_t partitions,
                  std::string* why) {
  std::set<int32_t> all;
  size_t total = 0;
  for (const MemberProcess* m : members) {
    if (!m->running()) continue;
    if (const std::string how = m->exited(); !how.empty()) {
      if (why) *why = m->name() + " exited (" + how + "): " + m->log();
      return false;
    }
    const auto share = m->assignment();
    if (!share || share->empty()) {
      if (why) *why = m->name() + " has no partitions";
      return false;
    }
    total += share->size();
    all.insert(share->begin(), share->end());
  }
  if (total != all.size()) {
    if (why) *why = "shares overlap";
    return false;
  }
  if (all.size() != static_cast<size_t>(partitions) || *all.begin() != 0 ||
      *all.rbegin() != partitions - 1) {
    if (why) *why = "shares cover " + std::to_string(all.size()) + " partitions";
    return false;
  }
  return true;
}

std::string describe_shares(const std::vector<const MemberProcess*>& members) {
  std::string out;
  for (const MemberProcess* m : members) {
    out += m->name() + (m->running() ? "" : " (stopped)") + ": ";
    const auto share = m->assignment();
    if (!share) {
      out += "none yet\n";
      continue;
    }
    for (int32_t p : *share) out += std::to_string(p) + " ";
    out += "\n";
  }
  return out;
}

}  // namespace spillway::testing
