// A latency histogram that never allocates while recording: HDR-style
// log-linear buckets in one fixed array, nanosecond resolution, every value
// from 0 to kMaxTrackableNs kept within kMaxRelativeError of its true value.
// One histogram per thread; merge() them when the run is over.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace spillway::perf {

class LatencyHistogram {
 public:
  // Buckets per power of two. 128 linear sub-buckets make each bucket at
  // most 1/128 of its value wide; reporting the bucket's midpoint halves
  // that, so a reported value is within 1/256 (0.39 %) of the truth.
  static constexpr int kSubBucketBits = 7;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBucketBits;
  // 2^36 ns is 68.7 s, which covers the 60 s the tool promises. Larger
  // values are counted (and kept exactly in max()) but land in the top bucket.
  static constexpr int kTopBit = 36;
  static constexpr uint64_t kMaxTrackableNs = (uint64_t{1} << kTopBit) - 1;
  static constexpr double kMaxRelativeError = 1.0 / 256;
  static constexpr std::size_t kBucketCount =
      kSubBuckets + static_cast<size_t>(kTopBit - kSubBucketBits) * kSubBuckets;

  // Zeroes every bucket; no allocation (the histogram holds its own array,
  // ~31 KiB: allocate it once up front, not per message).
  LatencyHistogram() noexcept { reset(); }

  // Records one latency. Constant time, no allocation, no locking: one
  // histogram belongs to one thread at a time.
  void record(uint64_t latency_ns) noexcept {
    ++counts_[bucket_index(latency_ns)];
    ++total_;
    if (latency_ns < min_) min_ = latency_ns;
    if (latency_ns > max_) max_ = latency_ns;
    if (latency_ns > kMaxTrackableNs) ++saturated_;
  }

  // Adds every value recorded in `other` to this histogram.
  void merge(const LatencyHistogram& other) noexcept;
  void reset() noexcept;

  // The value at percentile p (0..100): the smallest recorded value v such
  // that at least p % of the values are <= v, reported as its bucket's
  // midpoint clamped to [min(), max()]. p = 100 returns max() exactly.
  // 0 when nothing was recorded.
  uint64_t value_at_percentile(double p) const noexcept;

  uint64_t count() const noexcept { return total_; }
  uint64_t min() const noexcept { return total_ ? min_ : 0; }
  uint64_t max() const noexcept { return max_; }
  double mean() const noexcept;
  // Values above kMaxTrackableNs (their percentiles read as the top bucket).
  uint64_t saturated() const noexcept { return saturated_; }

  // The bucket a value falls in, and the range [lowest, highest] it covers.
  static std::size_t bucket_index(uint64_t value_ns) noexcept;
  static uint64_t bucket_lowest(std::size_t index) noexcept;
  static uint64_t bucket_highest(std::size_t index) noexcept;

 private:
  std::array<uint64_t, kBucketCount> counts_;
  uint64_t total_;
  uint64_t min_;
  uint64_t max_;
  uint64_t saturated_;
};

}  // namespace spillway::perf
