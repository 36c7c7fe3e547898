// Bucket maths of LatencyHistogram: values below kSubBuckets have a bucket
// each; above, each power of two [2^e, 2^(e+1)) is split into kSubBuckets
// equal parts, so the index is (octave, top kSubBucketBits+1 bits of value).
#include "spillway/perf/latency_histogram.h"

#include <bit>
#include <cmath>

namespace spillway::perf {

size_t LatencyHistogram::bucket_index(uint64_t value_ns) noexcept {
  if (value_ns > kMaxTrackableNs) value_ns = kMaxTrackableNs;
  if (value_ns < kSubBuckets) return static_cast<size_t>(value_ns);
  const int exponent = std::bit_width(value_ns) - 1;  // >= kSubBucketBits
  const int shift = exponent - kSubBucketBits;
  const uint64_t mantissa = value_ns >> shift;  // in [kSubBuckets, 2*kSubBuckets)
  return static_cast<size_t>(kSubBuckets + static_cast<uint64_t>(shift) * kSubBuckets +
                             (mantissa - kSubBuckets));
}

uint64_t LatencyHistogram::bucket_lowest(size_t index) noexcept {
  if (index < kSubBuckets) return index;
  const uint64_t shift = (index - kSubBuckets) / kSubBuckets;
  const uint64_t mantissa = kSubBuckets + (index - kSubBuckets) % kSubBuckets;
  return mantissa << shift;
}

uint64_t LatencyHistogram::bucket_highest(size_t index) noexcept {
  if (index < kSubBuckets) return index;
  const uint64_t shift = (index - kSubBuckets) / kSubBuckets;
  return bucket_lowest(index) + ((uint64_t{1} << shift) - 1);
}

void LatencyHistogram::reset() noexcept {
  counts_.fill(0);
  total_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  saturated_ = 0;
}

void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
  for (size_t i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  saturated_ += other.saturated_;
  if (other.total_ != 0) {
    if (other.min_ < min_) min_ = other.min_;
    if (other.max_ > max_) max_ = other.max_;
  }
}

uint64_t LatencyHistogram::value_at_percentile(double p) const noexcept {
  if (total_ == 0) return 0;
  if (p >= 100.0) return max_;
  if (p < 0.0) p = 0.0;
  // Rank of the wanted value, 1-based: ceil(p/100 * n), at least 1.
  auto rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total_)));
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (size_t i = 0; i < kBucketCount; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const uint64_t lo = bucket_lowest(i), hi = bucket_highest(i);
      uint64_t v = lo + (hi - lo) / 2;
      if (v < min_) v = min_;
      if (v > max_) v = max_;
      return v;
    }
  }
  return max_;
}

double LatencyHistogram::mean() const noexcept {
  if (total_ == 0) return 0.0;
  double sum = 0.0;
  for (size_t i = 0; i < kBucketCount; ++i) {
    if (counts_[i] == 0) continue;
    const uint64_t lo = bucket_lowest(i), hi = bucket_highest(i);
    sum += static_cast<double>(counts_[i]) *
           (static_cast<double>(lo) + static_cast<double>(hi - lo) / 2);
  }
  return sum / static_cast<double>(total_);
}

}  // namespace spillway::perf
