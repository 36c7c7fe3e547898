// ScrubBudget: a token bucket refilled lazily on take().
#include "core/scrub_budget.h"

#include <algorithm>

namespace spillway::broker {

ScrubBudget& ScrubBudget::global() {
  static ScrubBudget budget;
  return budget;
}

void ScrubBudget::set_rate(uint64_t bytes_per_second) {
  std::lock_guard lock(mu_);
  rate_.store(bytes_per_second, std::memory_order_relaxed);
  tokens_ = 0;
  refilled_ = Clock::now();
}

uint64_t ScrubBudget::take(uint64_t want) {
  const uint64_t rate = rate_.load(std::memory_order_relaxed);
  if (rate == 0) return 0;
  std::lock_guard lock(mu_);
  const Clock::time_point now = Clock::now();
  const double seconds = std::chrono::duration<double>(now - refilled_).count();
  refilled_ = now;
  tokens_ = std::min(static_cast<double>(rate), tokens_ + seconds * static_cast<double>(rate));
  const uint64_t granted = std::min<uint64_t>(want, static_cast<uint64_t>(tokens_));
  tokens_ -= static_cast<double>(granted);
  return granted;
}

}  // namespace spillway::broker
