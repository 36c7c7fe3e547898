// Child-process helpers for tests that run the real binaries.
#include "broker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>

extern char** environ;

namespace spillway::testing {

namespace {

using Clock = std::chrono::steady_clock;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Starts `binary` with stdout and stderr appended to `log_path`.
Result<pid_t> spawn(const std::string& binary, const std::vector<std::string>& args,
                    const std::filesystem::path& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  // posix_spawnp: a binary given with a '/' is taken as is, a bare name
  // (a command prefix such as "ip") is searched in PATH.
  const int rc = posix_spawnp(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return Status(ErrorCode::kIoError, "cannot start " + binary + ": " + std::strerror(rc));
  }
  return pid;
}

// Finds "listening on HOST:PORT" (HOST an IPv4 literal or [IPv6]) in the
// broker's start-up line.
bool parse_address_after(const std::string& log, std::string_view marker, std::string* host,
                         uint16_t* port) {
  const size_t at = log.find(marker);
  if (at == std::string::npos) return false;
  const size_t start = at + marker.size();
  const size_t end = log.find_first_of(" \n", start);
  if (end == std::string::npos) return false;  // the line is still being written
  const std::string address = log.substr(start, end - start);
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  unsigned value = 0;
  for (char c : address.substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
    if (value > 65535) return false;
  }
  *host = address.substr(0, colon);
  *port = static_cast<uint16_t>(value);
  return true;
}

bool parse_listening_line(const std::string& log, std::string* host, uint16_t* port) {
  return parse_address_after(log, "listening on ", host, port);
}

ProcessExit decode_wait_status(int status) {
  ProcessExit exit;
  if (WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  return exit;
}

// Waits for `pid` up to `timeout`; SIGKILLs it after that. Returns the wait
// status and whether it had to be killed.
std::pair<int, bool> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return {status, false};
    if (r < 0 && errno != EINTR) return {0, false};
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return {status, true};
}

}  // namespace

int64_t process_status_kib(pid_t pid, std::string_view field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  const std::string prefix = std::string(field) + ":";
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size()));
  }
  return -1;
}

bool raise_open_files_limit(uint64_t n) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  if (limit.rlim_cur < n) {
    limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, n);
    ::setrlimit(RLIMIT_NOFILE, &limit);
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  }
  return limit.rlim_cur >= n;
}

std::string broker_binary() {
  return SPILLWAY_BROKER_BINARY;
}
std::string cli_binary() {
  return SPILLWAY_CLI_BINARY;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/spillway-test-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) std::abort();  // a test cannot run without it
  path_ = pattern;
}

TempDir::~TempDir() {
  // SPILLWAY_TEST_KEEP_TMP=1 keeps every test's directory (broker logs,
  // data) for explaining a failure afterwards.
  if (const char* keep = std::getenv("SPILLWAY_TEST_KEEP_TMP"); keep != nullptr && *keep == '1') {
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

Result<ProcessExit> run_process(const std::string& binary, const std::vector<std::string>& args,
                                std::chrono::milliseconds timeout) {
  TempDir dir;
  const auto log_path = dir.path() / "output";
  Result<pid_t> pid = spawn(binary, args, log_path);
  if (!pid.ok()) return pid.status();
  auto [status, killed] = wait_for_exit(*pid, timeout);
  ProcessExit exit = decode_wait_status(status);
  exit.output = read_file(log_path);
  if (killed) {
    return Status(ErrorCode::kTimeout, binary + " did not exit in time; output:\n" + exit.output);
  }
  return exit;
}

Result<std::unique_ptr<BrokerProcess>> BrokerProcess::start(Options options) {
  std::unique_ptr<BrokerProcess> broker(new BrokerProcess());
  broker->temp_ = std::make_unique<TempDir>();
  broker->log_path_ = broker->temp_->path() / "broker.log";
  std::vector<std::string> args;
  if (options.default_listen) args.insert(args.end(), {"--listen", "127.0.0.1:0"});
  // The Kafka listener defaults to the fixed port 9092; tests run in parallel.
  const bool kafka_given =
      std::find(options.args.begin(), options.args.end(), "--kafka-listen") != options.args.end();
  if (!kafka_given) args.insert(args.end(), {"--kafka-listen", "127.0.0.1:0"});
  if (options.default_data_dir) {
    broker->data_dir_ = broker->temp_->path() / "data";
    args.insert(args.end(), {"--data-dir", broker->data_dir_.string()});
  }
  args.insert(args.end(), options.args.begin(), options.args.end());
  std::string binary = broker_binary();
  if (!options.command_prefix.empty()) {
    args.insert(args.begin(), binary);
    args.insert(args.begin(), options.command_prefix.begin() + 1, options.command_prefix.end());
    binary = options.command_prefix.front();
  }
  Result<pid_t> pid = spawn(binary, args, broker->log_path_);
  if (!pid.ok()) return pid.status();
  broker->pid_ = *pid;

  // The start-up line: "... listening on 127.0.0.1:40123 (data_dir ...".
  const auto deadline = Clock::now() + options.start_timeout;
  for (;;) {
    const std::string log = broker->log();
    if (parse_listening_line(log, &broker->host_, &broker->port_)) {
      // Logged before "listening on" when the Kafka listener is on.
      std::string kafka_host;
      parse_address_after(log, "kafka on ", &kafka_host, &broker->kafka_port_);
      return broker;
    }
    int status = 0;
    if (waitpid(broker->pid_, &status, WNOHANG) == broker->pid_) {
      broker->pid_ = -1;
      ProcessExit exit = decode_wait_status(status);
      return Status(ErrorCode::kUnknown,
                    "spillway-broker exited (code " + std::to_string(exit.exit_code) + ", signal " +
                        std::to_string(exit.signal) + ") before listening:\n" + broker->log());
    }
    if (Clock::now() >= deadline) {
      return Status(ErrorCode::kTimeout, "spillway-broker did not log 'listening on':\n" + log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

BrokerProcess::~BrokerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

std::string BrokerProcess::log() const {
  return read_file(log_path_);
}

Result<ProcessExit> BrokerProcess::stop(int signal, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return Status(ErrorCode::kInvalidArgument, "broker is not running");
  kill(pid_, signal);
  auto [status, killed] = wait_for_exit(pid_, timeout);
  pid_ = -1;
  ProcessExit exit = decode_wait_status(status);
  exit.output = log();
  if (killed) {
    return Status(ErrorCode::kTimeout,
                  "spillway-broker did not stop in time; log:\n" + exit.output);
  }
  return exit;
}

uint16_t BrokerProcess::listener_port(std::string_view name) const {
  // Logged before "listening on": "<name> on HOST:PORT ...".
  std::string host;
  uint16_t port = 0;
  parse_address_after(log(), " " + std::string(name) + " on ", &host, &port);
  return port;
}

}  // namespace spillway::testing
