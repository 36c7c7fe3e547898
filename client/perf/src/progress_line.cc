// ProgressLine: a thread that wakes once a second (or at stop) to redraw.
#include "spillway/perf/progress_line.h"

#include <unistd.h>

#include <chrono>

#include "spillway/perf/perf_report.h"

namespace spillway::perf {

std::string format_progress(uint64_t elapsed_s, uint64_t done, uint64_t per_second,
                            uint64_t bytes_per_second, uint64_t target) {
  char buffer[192];
  std::snprintf(buffer, sizeof buffer, "[%3llu s] %s msgs  %s msg/s  %.2f MB/s",
                static_cast<unsigned long long>(elapsed_s), group_thousands(done).c_str(),
                group_thousands(per_second).c_str(), static_cast<double>(bytes_per_second) / 1e6);
  std::string line = buffer;
  if (target != 0) line += "  of " + group_thousands(target);
  return line;
}

ProgressLine::ProgressLine(const std::atomic<uint64_t>* done, uint64_t message_bytes,
                           uint64_t target, std::FILE* out, ProgressDisplay display,
                           const std::atomic<uint64_t>* bytes_done)
    : done_(done),
      bytes_done_(bytes_done),
      message_bytes_(message_bytes),
      target_(target),
      out_(out) {
  if (display == ProgressDisplay::kAlways || isatty(fileno(out))) {
    thread_ = std::thread([this] { run(); });
  }
}

ProgressLine::~ProgressLine() {
  stop();
}

void ProgressLine::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressLine::run() {
  const auto start = std::chrono::steady_clock::now();
  auto bytes = [this](uint64_t done) {
    return bytes_done_ != nullptr ? bytes_done_->load(std::memory_order_relaxed)
                                  : done * message_bytes_;
  };
  uint64_t previous = done_->load(std::memory_order_relaxed);
  uint64_t previous_bytes = bytes(previous);
  std::unique_lock lock(mutex_);
  for (uint64_t second = 1;; ++second) {
    if (wake_.wait_until(lock, start + std::chrono::seconds(second), [this] { return stopping_; }))
      break;
    const uint64_t done = done_->load(std::memory_order_relaxed);
    const uint64_t done_bytes = bytes(done);
    const std::string line =
        format_progress(second, done, done - previous, done_bytes - previous_bytes, target_);
    previous = done;
    previous_bytes = done_bytes;
    // Pad with spaces so a shorter line fully covers the longer one before it.
    std::fprintf(out_, "\r%s%*s", line.c_str(),
                 static_cast<int>(last_width_ > line.size() ? last_width_ - line.size() : 0), "");
    std::fflush(out_);
    last_width_ = line.size();
  }
  if (last_width_ != 0) {
    std::fprintf(out_, "\r%*s\r", static_cast<int>(last_width_), "");
    std::fflush(out_);
  }
}

}  // namespace spillway::perf
