// Test support: runs the real spillway-broker (and the spillway CLI) as child
// processes. A BrokerProcess starts the broker on an ephemeral port with a
// temporary data directory, learns the port from its start-up log line, and
// stops it by PID. Used by tests/integration and by later end-to-end tests.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::testing {

// Paths of the binaries under test (compile definitions of this library).
std::string broker_binary();
std::string cli_binary();

// A fresh directory under $TMPDIR (or /tmp), removed with its contents when
// the object is destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The result of a child process run to its end.
struct ProcessExit {
  int exit_code = -1;  // exit status, or -1 when killed by a signal
  int signal = 0;      // the terminating signal, 0 when it exited
  std::string output;  // stdout and stderr, interleaved
};

// Runs `binary` with `args` to its end, killing it (SIGKILL) if it runs
// longer than `timeout`. Error (kTimeout) when killed, kIoError when it
// cannot be started.
Result<ProcessExit> run_process(const std::string& binary, const std::vector<std::string>& args,
                                std::chrono::milliseconds timeout = std::chrono::seconds(30));

// A field of /proc/PID/status in KiB ("VmRSS", "VmHWM", ...); -1 when the
// process or the field is not there.
int64_t process_status_kib(pid_t pid, std::string_view field = "VmRSS");

// Raises this process's soft RLIMIT_NOFILE to at least `n` (up to the hard
// limit); children started later inherit it. True iff the limit is >= n.
bool raise_open_files_limit(uint64_t n);

class BrokerProcess {
 public:
  struct Options {
    // Arguments after the defaults below; for a repeated flag the broker
    // takes the last one, so these override the defaults.
    std::vector<std::string> args;
    bool default_listen = true;    // adds --listen 127.0.0.1:0
    bool default_data_dir = true;  // adds --data-dir <temporary directory>
    std::chrono::milliseconds start_timeout{30'000};
    // A command the broker runs under, e.g. {"ip", "netns", "exec", NAME}
    // (searched in PATH); it must exec the broker in its own process, so
    // that pid() is the broker's. Empty = the broker itself.
    std::vector<std::string> command_prefix;
  };

  // Starts the broker and returns once its log says "listening on". Error
  // when it exits first (the message holds its output) or the timeout passes.
  static Result<std::unique_ptr<BrokerProcess>> start(Options options);
  static Result<std::unique_ptr<BrokerProcess>> start() { return start(Options{}); }

  // Kills (SIGKILL) a broker still running.
  ~BrokerProcess();
  BrokerProcess(const BrokerProcess&) = delete;
  BrokerProcess& operator=(const BrokerProcess&) = delete;

  pid_t pid() const { return pid_; }
  uint16_t port() const { return port_; }
  // The Kafka listener's port; 0 when it is off.
  uint16_t kafka_port() const { return kafka_port_; }
  std::string kafka_address() const { return host_ + ":" + std::to_string(kafka_port_); }
  // The port of a further listener ([broker] listeners, [kafka] listeners)
  // by the name the broker logs it under, e.g. "kafka SASL_SSL" or
  // "native SSL" (the first of that name); 0 when there is none.
  uint16_t listener_port(std::string_view name) const;
  // "127.0.0.1:PORT" (the host the log line named).
  std::string address() const { return host_ + ":" + std::to_string(port_); }
  // The temporary data directory (empty when default_data_dir was false);
  // it lives as long as this object.
  const std::filesystem::path& data_dir() const { return data_dir_; }
  // Everything the broker wrote to stdout/stderr so far.
  std::string log() const;

  // Sends `signal` and waits for the process to end (SIGKILL after
  // `timeout`). Returns how it ended. Call at most once.
  Result<ProcessExit> stop(int signal,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  BrokerProcess() = default;

  pid_t pid_ = -1;
  uint16_t port_ = 0;
  uint16_t kafka_port_ = 0;
  std::string host_;
  std::unique_ptr<TempDir> temp_;
  std::filesystem::path data_dir_;
  std::filesystem::path log_path_;
};

}  // namespace spillway::testing
