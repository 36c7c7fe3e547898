// RateSchedule's inverse and the sleep-then-spin wait of fixed-rate runs.
#include "spillway/perf/rate_schedule.h"

#include <sys/prctl.h>
#include <time.h>

#include <cerrno>

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
  // Sleep on an absolute deadline, with no spinning: on a small machine a
  // spinning sender takes a core from the broker and the consumer, and that
  // shows up as their tail latency. The thread's timer slack is cut to 1 µs
  // once (the default 50 µs would be added to every wake-up); what lateness
  // remains is counted, since latency is measured from the intended time.
  static thread_local const bool slack_set = [] {
    ::prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    return true;
  }();
  (void)slack_set;
  if (now_ns() >= t_ns) return;
  const timespec ts{static_cast<time_t>(t_ns / 1'000'000'000u),
                    static_cast<long>(t_ns % 1'000'000'000u)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace spillway::perf
