/* Shared helpers of the bench/compare peer clients (C): monotonic clock,
 * the fixed-rate wait, payloads that carry their intended send time, and
 * exact latency percentiles from a preallocated sample array.
 * The clock is CLOCK_MONOTONIC, the same clock `spillway perf` uses, so
 * every system's latency is measured the same way: from the intended send
 * time (start + k / rate) to the moment the consumer holds the message. */
#ifndef SPILLWAY_BENCH_COMPARE_BENCH_UTIL_H
#define SPILLWAY_BENCH_COMPARE_BENCH_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static inline uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Intended send time of message k at `rate` messages/s from `start`. */
static inline uint64_t bench_intended_ns(uint64_t start, uint64_t k, uint64_t rate) {
  return start + (uint64_t)((unsigned __int128)k * 1000000000u / rate);
}

/* Sleeps until the absolute CLOCK_MONOTONIC deadline t, never spinning
 * (returns at once if t has passed). On a 2-core machine a spinning sender
 * takes a core from the server under test and the consumer; at 20,000 msg/s
 * the interval is 50 us, so the old sleep-then-spin wait spun all the time.
 * This is the same wait as `spillway perf` (client/perf/src/rate_schedule.cc),
 * so every system is paced identically: the calling thread's timer slack is
 * cut to 1 us once (the default 50 us would be added to every wake-up), and
 * whatever lateness remains is counted, not hidden, because latency is
 * measured from the intended send time. wake_jitter.c measures that lateness
 * on its own. */
static inline void bench_wait_until(uint64_t t) {
  static _Thread_local int slack_set = 0;
  if (!slack_set) {
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    slack_set = 1;
  }
  if (bench_now_ns() >= t) return;
  struct timespec ts = {(time_t)(t / 1000000000u), (long)(t % 1000000000u)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

/* A payload of `size` bytes (>= 8) whose first 8 bytes are a timestamp. */
static inline void bench_stamp(char* payload, uint64_t t) {
  memcpy(payload, &t, sizeof t);
}
static inline uint64_t bench_read_stamp(const char* payload) {
  uint64_t t;
  memcpy(&t, payload, sizeof t);
  return t;
}

typedef struct {
  uint64_t* values;
  size_t count;
  size_t capacity;
} bench_samples;

/* Allocated once before the run; recording never allocates (samples beyond
 * the capacity are counted in `count` but not kept, and reported). */
static inline void bench_samples_init(bench_samples* s, size_t capacity) {
  s->values = (uint64_t*)malloc(capacity * sizeof(uint64_t));
  s->count = 0;
  s->capacity = s->values ? capacity : 0;
}
static inline void bench_samples_add(bench_samples* s, uint64_t v) {
  if (s->count < s->capacity) s->values[s->count] = v;
  s->count++;
}

static int bench_cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

/* Rank ceil(p/100 * n) of the sorted samples (1-based); 0 when empty. */
static inline double bench_percentile_us(const uint64_t* sorted, size_t n, double p) {
  if (n == 0) return 0;
  size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999999);
  if (rank == 0) rank = 1;
  if (rank > n) rank = n;
  return (double)sorted[rank - 1] / 1e3;
}

/* Prints "RESULT latency sent=.. received=.. p50_us=.. p90_us=.. p99_us=.. p999_us=.. max_us=.." */
static inline void bench_print_latency(bench_samples* s, uint64_t sent) {
  size_t n = s->count < s->capacity ? s->count : s->capacity;
  qsort(s->values, n, sizeof(uint64_t), bench_cmp_u64);
  printf(
      "RESULT latency sent=%llu received=%llu p50_us=%.1f p90_us=%.1f p99_us=%.1f "
      "p999_us=%.1f max_us=%.1f\n",
      (unsigned long long)sent, (unsigned long long)s->count, bench_percentile_us(s->values, n, 50),
      bench_percentile_us(s->values, n, 90), bench_percentile_us(s->values, n, 99),
      bench_percentile_us(s->values, n, 99.9), n ? (double)s->values[n - 1] / 1e3 : 0.0);
}

/* Prints "RESULT <what> msgs=.. secs=.. msg_per_s=.. mb_per_s=.." */
static inline void bench_print_rate(const char* what, uint64_t msgs, size_t size, uint64_t ns) {
  double secs = (double)ns / 1e9;
  printf("RESULT %s msgs=%llu secs=%.3f msg_per_s=%.0f mb_per_s=%.2f\n", what,
         (unsigned long long)msgs, secs, secs > 0 ? (double)msgs / secs : 0.0,
         secs > 0 ? (double)msgs * (double)size / secs / 1e6 : 0.0);
}

#endif
