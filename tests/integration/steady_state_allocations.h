// The check both protocols' allocation tests make: after a warm-up, the
// broker's heap allocations over 20,000 and then 40,000 messages are a
// small constant (the odd segment roll or asio cache miss), never
// per message or per request.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>

namespace spillway::testing {

// `workload(n)` sends and fetches n messages; `allocations()` reads the
// broker's spillway_heap_allocations_total (-1: not counted in this build).
inline void expect_no_allocations_per_message(const std::function<void(int)>& workload,
                                              const std::function<int64_t()>& allocations,
                                              const char* label, int warm_up) {
  ASSERT_NO_FATAL_FAILURE(workload(warm_up));  // pools, vectors, asio's handler caches
  const int64_t first = allocations();
  if (first == -1) GTEST_SKIP() << "broker built without SPILLWAY_COUNT_ALLOCATIONS";
  ASSERT_GE(first, 0);
  // Each reading is a /metrics scrape, which allocates (the per-group
  // figures are gathered from every core): what one costs is measured by
  // two back to back and left out of the intervals, each of which holds one.
  const int64_t start = allocations();
  const int64_t scrape = start - first;
  ASSERT_NO_FATAL_FAILURE(workload(20'000));
  const int64_t after_small = allocations();
  ASSERT_NO_FATAL_FAILURE(workload(40'000));
  const int64_t after_large = allocations();
  const int64_t small = after_small - start - scrape, large = after_large - after_small - scrape;
  std::printf(
      "broker heap allocations (%s): %lld for 20000 messages, %lld for 40000 (one scrape's "
      "own %lld left out)\n",
      label, static_cast<long long>(small), static_cast<long long>(large),
      static_cast<long long>(scrape));
  // 20000 messages are 200 produce requests: a constant, not per request.
  EXPECT_LT(small, 100);
  EXPECT_LT(large, 100);
  // Twice the messages, not (close to) twice the allocations.
  EXPECT_LT(large, small + 50);
}

}  // namespace spillway::testing
