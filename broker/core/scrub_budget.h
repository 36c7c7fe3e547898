// ScrubBudget: the broker-wide byte rate of the scrubber, which re-reads the
// sealed segments of every partition in a loop and checks each batch's
// framing, offsets and CRC (docs/log-storage.md, "Scrubber"). A token
// bucket shared by every partition on every core, plus the counters /metrics
// shows.
//
// Thread-safe: take() locks a mutex (once per granted step, a few per
// second); the counters are relaxed atomics.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace spillway::broker {

class ScrubBudget {
 public:
  // The process-wide budget; off (rate 0) until set_rate().
  static ScrubBudget& global();

  // Bytes per second all partitions together may scrub; 0 turns it off.
  // The bucket holds at most one second's worth.
  void set_rate(uint64_t bytes_per_second);
  bool enabled() const { return rate_.load(std::memory_order_relaxed) > 0; }

  // Grants up to `want` bytes from the bucket (refilled by the time since
  // the last call); 0 when it is empty or the scrubber is off.
  uint64_t take(uint64_t want);

  // What scrubbing found, for /metrics.
  void count_scrubbed(uint64_t bytes) {
    scrubbed_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  void count_damage() { damaged_segments_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t scrubbed_bytes() const { return scrubbed_bytes_.load(std::memory_order_relaxed); }
  uint64_t damaged_segments() const { return damaged_segments_.load(std::memory_order_relaxed); }

 private:
  using Clock = std::chrono::steady_clock;
  std::atomic<uint64_t> rate_{0};
  std::mutex mu_;
  double tokens_ = 0;             // under mu_
  Clock::time_point refilled_{};  // under mu_
  std::atomic<uint64_t> scrubbed_bytes_{0};
  std::atomic<uint64_t> damaged_segments_{0};
};

}  // namespace spillway::broker
