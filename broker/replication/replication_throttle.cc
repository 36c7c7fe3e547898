// ReplicationThrottle: a token bucket of one second's worth that may go
// into debt.
#include "replication/replication_throttle.h"

#include <algorithm>
#include <limits>

namespace spillway::broker::replication {

ReplicationThrottle::ReplicationThrottle(std::function<Clock::time_point()> now)
    : now_(std::move(now)) {}

void ReplicationThrottle::set_rate(uint64_t bytes_per_second) {
  std::lock_guard lock(mu_);
  if (bytes_per_second == rate_.load(std::memory_order_relaxed)) return;
  const Clock::time_point now = now_();
  if (rate_.load(std::memory_order_relaxed) == 0) {
    // Turned on: a full bucket, so the first read goes at once.
    tokens_ = static_cast<double>(bytes_per_second);
  } else {
    refill_locked(now);
    tokens_ = std::min(tokens_, static_cast<double>(bytes_per_second));
  }
  refilled_ = now;
  rate_.store(bytes_per_second, std::memory_order_relaxed);
}

void ReplicationThrottle::refill_locked(Clock::time_point now) {
  const uint64_t rate = rate_.load(std::memory_order_relaxed);
  if (now > refilled_) {
    const double seconds = std::chrono::duration<double>(now - refilled_).count();
    tokens_ = std::min(tokens_ + seconds * static_cast<double>(rate), static_cast<double>(rate));
    refilled_ = now;
  }
}

uint64_t ReplicationThrottle::available() {
  if (rate_.load(std::memory_order_relaxed) == 0) return std::numeric_limits<uint64_t>::max();
  std::lock_guard lock(mu_);
  refill_locked(now_());
  return tokens_ >= 1 ? static_cast<uint64_t>(tokens_) : 0;
}

void ReplicationThrottle::charge(uint64_t bytes) {
  throttled_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  if (rate_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu_);
  refill_locked(now_());
  tokens_ -= static_cast<double>(bytes);
}

}  // namespace spillway::broker::replication
