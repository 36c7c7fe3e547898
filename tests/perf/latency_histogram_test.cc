// LatencyHistogram: percentiles against exact ones from sorted samples,
// bucket bounds, merge, and no allocation while recording.
#include "spillway/perf/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "alloc_counter.h"

namespace spillway::perf {
namespace {

// The exact percentile with the histogram's definition: the value of rank
// ceil(p/100 * n) (1-based) in sorted order.
uint64_t exact_percentile(const std::vector<uint64_t>& sorted, double p) {
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  if (rank == 0) rank = 1;
  return sorted[rank - 1];
}

void expect_within_one_percent(uint64_t got, uint64_t want, double p) {
  const double err =
      std::abs(static_cast<double>(got) - static_cast<double>(want)) / static_cast<double>(want);
  EXPECT_LE(err, 0.01) << "p" << p << ": got " << got << " want " << want;
}

TEST(LatencyHistogram, PercentilesMatchSortedSamplesWithinOnePercent) {
  // Log-uniform from 1 µs to 60 s, plus a heavy cluster, so every octave
  // and the steep tail are exercised.
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> log_ns(std::log(1e3), std::log(60e9));
  std::vector<uint64_t> values;
  for (int i = 0; i < 200'000; ++i) values.push_back(static_cast<uint64_t>(std::exp(log_ns(rng))));
  std::normal_distribution<double> cluster(85'000, 4'000);
  for (int i = 0; i < 300'000; ++i)
    values.push_back(static_cast<uint64_t>(std::max(1e3, cluster(rng))));

  auto h = std::make_unique<LatencyHistogram>();
  for (uint64_t v : values) h->record(v);
  std::sort(values.begin(), values.end());

  for (double p : {0.0, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999}) {
    expect_within_one_percent(h->value_at_percentile(p), exact_percentile(values, p), p);
  }
  EXPECT_EQ(h->value_at_percentile(100.0), values.back());
  EXPECT_EQ(h->max(), values.back());
  EXPECT_EQ(h->min(), values.front());
  EXPECT_EQ(h->count(), values.size());
}

TEST(LatencyHistogram, EveryBucketIsNarrowerThanTheErrorBound) {
  for (size_t i = 0; i < LatencyHistogram::kBucketCount; ++i) {
    const uint64_t lo = LatencyHistogram::bucket_lowest(i);
    const uint64_t hi = LatencyHistogram::bucket_highest(i);
    ASSERT_LE(lo, hi);
    ASSERT_EQ(LatencyHistogram::bucket_index(lo), i);
    ASSERT_EQ(LatencyHistogram::bucket_index(hi), i);
    if (i + 1 < LatencyHistogram::kBucketCount) {
      ASSERT_EQ(LatencyHistogram::bucket_lowest(i + 1), hi + 1) << "gap after bucket " << i;
    }
    if (lo >= 1'000) {  // the promised range starts at 1 µs
      const double half_width = static_cast<double>(hi - lo) / 2;
      ASSERT_LE(half_width / static_cast<double>(lo), LatencyHistogram::kMaxRelativeError);
    }
  }
  EXPECT_GE(LatencyHistogram::bucket_highest(LatencyHistogram::kBucketCount - 1), 60'000'000'000u);
}

TEST(LatencyHistogram, ValuesBeyondTheRangeAreCountedAndKeepTheirMax) {
  LatencyHistogram h;
  h.record(1'000);
  h.record(LatencyHistogram::kMaxTrackableNs * 3);
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.saturated(), 1u);
  EXPECT_EQ(h.max(), LatencyHistogram::kMaxTrackableNs * 3);
  EXPECT_NEAR(static_cast<double>(h.value_at_percentile(50)), 1'000.0,
              1'000.0 * LatencyHistogram::kMaxRelativeError);
}

TEST(LatencyHistogram, EmptyHistogramReportsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.value_at_percentile(99), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(11.0, 1.5);
  auto a = std::make_unique<LatencyHistogram>();
  auto b = std::make_unique<LatencyHistogram>();
  auto all = std::make_unique<LatencyHistogram>();
  for (int i = 0; i < 50'000; ++i) {
    const auto v = static_cast<uint64_t>(dist(rng));
    (i % 3 == 0 ? *a : *b).record(v);
    all->record(v);
  }
  a->merge(*b);
  EXPECT_EQ(a->count(), all->count());
  EXPECT_EQ(a->min(), all->min());
  EXPECT_EQ(a->max(), all->max());
  for (double p : {50.0, 90.0, 99.0, 99.9})
    EXPECT_EQ(a->value_at_percentile(p), all->value_at_percentile(p));
  // Merging an empty histogram changes nothing, in particular not min().
  LatencyHistogram empty;
  a->merge(empty);
  EXPECT_EQ(a->min(), all->min());
}

TEST(LatencyHistogram, RecordingAllocatesNothing) {
  auto h = std::make_unique<LatencyHistogram>();
  std::vector<uint64_t> values;
  for (uint64_t v = 1; v < LatencyHistogram::kMaxTrackableNs * 2; v = v * 3 + 1)
    values.push_back(v);
  spillway::testing::AllocationScope scope;
  for (int round = 0; round < 1'000; ++round) {
    for (uint64_t v : values) h->record(v);
  }
  EXPECT_EQ(scope.thread_allocations(), 0u);
  EXPECT_EQ(h->count(), values.size() * 1'000);
}

}  // namespace
}  // namespace spillway::perf
