// The one-line progress display of `spillway perf`: once a second it
// rewrites (with '\r') a line on stderr saying how many messages completed
// and the rate over the last second. Shown only when stderr is a terminal,
// so piped or --json output stays clean.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace spillway::perf {

// Text of one progress line (no '\r', no newline), e.g.
// "[  3 s] 1,234,567 msgs  412,000 msg/s  41.20 MB/s  of 2,000,000".
// `target` 0 means the run is bounded by time, not by count.
std::string format_progress(uint64_t elapsed_s, uint64_t done, uint64_t per_second,
                            uint64_t bytes_per_second, uint64_t target);

// When a ProgressLine draws.
enum class ProgressDisplay : uint8_t {
  kIfTerminal,  // only when its output is a terminal
  kAlways,
};

class ProgressLine {
 public:
  // Watches `*done` (a counter the workers bump; must outlive this object)
  // and, when given, `*bytes_done` (the payload bytes of those messages, for
  // messages of any size); without it each message counts `message_bytes`.
  // Starts its thread only when `display` says it draws on `out`.
  ProgressLine(const std::atomic<uint64_t>* done, uint64_t message_bytes, uint64_t target,
               std::FILE* out = stderr, ProgressDisplay display = ProgressDisplay::kIfTerminal,
               const std::atomic<uint64_t>* bytes_done = nullptr);
  ~ProgressLine();  // stop()
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Stops the thread and erases the line. Idempotent.
  void stop();
  bool enabled() const noexcept { return thread_.joinable(); }

 private:
  void run();

  const std::atomic<uint64_t>* done_;
  const std::atomic<uint64_t>* bytes_done_;
  uint64_t message_bytes_;
  uint64_t target_;
  std::FILE* out_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  size_t last_width_ = 0;
  std::thread thread_;
};

}  // namespace spillway::perf
