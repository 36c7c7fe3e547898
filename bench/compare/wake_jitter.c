/* The scheduling floor of bench/compare's latency table: how late a thread
 * wakes from a fixed-rate absolute-deadline sleep on an otherwise idle
 * machine, with no broker, network or client in the path.
 *
 *   wake_jitter RATE SECONDS
 * Wakes at start + k * 1e9 / RATE ns (CLOCK_MONOTONIC) with
 * bench_wait_until, the wait every peer client uses (timer slack 1 us,
 * clock_nanosleep TIMER_ABSTIME, no spinning), and records for every k the
 * lateness now - deadline. As in the latency runs, a deadline already past
 * on return from a long stall is not skipped: it is recorded at once with
 * its (smaller) lateness, so this is the lateness a paced sender's
 * messages start with. No end-to-end latency can be lower than this.
 * Prints "RESULT latency sent=.. received=.. p50_us=.. p90_us=.. p99_us=..
 * p999_us=.. max_us=.." like the peer clients (bench_util.h). */
#include "bench_util.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: wake_jitter RATE SECONDS\n");
    return 2;
  }
  const double rate_d = atof(argv[1]);
  const double seconds = atof(argv[2]);
  const double total_d = rate_d * seconds;
  /* Bounded: one preallocated array of at most 50 M samples (400 MB). */
  if (rate_d < 1 || rate_d > 1e9 || seconds <= 0 || total_d < 1 || total_d > 50e6) {
    fprintf(stderr, "wake_jitter: RATE >= 1, SECONDS > 0, RATE * SECONDS <= 50e6\n");
    return 2;
  }
  const uint64_t rate = (uint64_t)rate_d;
  const uint64_t total = (uint64_t)total_d;
  bench_samples samples;
  bench_samples_init(&samples, total);
  if (samples.capacity < total) {
    fprintf(stderr, "wake_jitter: out of memory for %llu samples\n", (unsigned long long)total);
    return 1;
  }
  bench_wait_until(0); /* sets the timer slack before the first timed wait */
  const uint64_t start = bench_now_ns() + 1000000; /* 1 ms to settle */
  for (uint64_t k = 0; k < total; k++) {
    const uint64_t due = bench_intended_ns(start, k, rate);
    bench_wait_until(due);
    const uint64_t now = bench_now_ns();
    bench_samples_add(&samples, now > due ? now - due : 0);
  }
  bench_print_latency(&samples, total);
  free(samples.values);
  return 0;
}
