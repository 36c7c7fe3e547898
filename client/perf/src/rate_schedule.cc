// RateSchedule's inverse and the sleep-then-spin wait of fixed-rate runs.
#include "spillway/perf/rate_schedule.h"

#include <thread>

namespace spillway::perf {

uint64_t RateSchedule::due_by(uint64_t t_ns) const noexcept {
  if (t_ns < start_ns_) return 0;
  // k is due iff floor(k*1e9/rate) <= elapsed iff k*1e9 < (elapsed+1)*rate,
  // so the count of due k is ceil((elapsed+1)*rate / 1e9).
  const unsigned __int128 elapsed_plus_one = t_ns - start_ns_ + 1;
  const unsigned __int128 scaled = elapsed_plus_one * rate_;
  return static_cast<uint64_t>((scaled + 999'999'999u) / 1'000'000'000u);
}

void wait_until_ns(uint64_t t_ns) noexcept {
  // The kernel's timer slack and wake-up cost make a sleep land up to
  // ~60 µs late; stop sleeping 50 µs ahead and spin (yielding the core
  // to other threads, which matters on a small machine) the rest.
  constexpr uint64_t kSpinNs = 50'000;
  for (;;) {
    const uint64_t now = now_ns();
    if (now >= t_ns) return;
    const uint64_t left = t_ns - now;
    if (left > kSpinNs) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(left - kSpinNs));
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace spillway::perf
