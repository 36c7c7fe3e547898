// The result of one `spillway perf` run and its two renderings: a table for
// people and JSON (--json) for scripts such as bench/compare/run.sh.
#pragma once

#include <cstdint>
#include <string>

#include "spillway/perf/latency_histogram.h"

namespace spillway::perf {

struct PerfResult {
  std::string mode;            // "produce", "consume" or "e2e"
  std::string latency_origin;  // what latency is measured from, e.g. "intended send time"
  uint64_t messages = 0;       // messages completed (acked or received)
  uint64_t bytes = 0;          // payload bytes of those messages
  uint64_t errors = 0;         // messages that failed
  uint64_t elapsed_ns = 0;     // first send (or fetch) to last completion
  uint64_t target_rate = 0;    // --rate, 0 in throughput mode
  uint32_t producers = 0;
  uint32_t consumers = 0;
  uint32_t message_bytes = 0;
  const LatencyHistogram* latency = nullptr;  // null: no latency measured

  double messages_per_second() const noexcept;
  double megabytes_per_second() const noexcept;  // 10^6 bytes
};

// Percentiles the table and the JSON report, in this order.
inline constexpr double kReportedPercentiles[] = {50.0, 90.0, 99.0, 99.9};

// A few aligned lines ending in '\n':
//   produce: 1,000,000 msgs of 100 B in 2.01 s  497,512 msg/s  49.75 MB/s
//   latency (from intended send time)  p50 ... p90 ... max ...
std::string format_table(const PerfResult& result);

// One JSON object on one line, '\n'-terminated. Latencies in microseconds
// (fractional) under "latency_us": {"p50":..,"p90":..,"p99":..,"p99.9":..,
// "max":..,"mean":..,"count":..}; absent when result.latency is null or
// empty (nothing acknowledged or received). The table leaves the latency
// line out in the same cases.
std::string format_json(const PerfResult& result);

// "1,234,567": digit grouping for the table.
std::string group_thousands(uint64_t value);
// "850 ns", "12.3 µs", "4.56 ms", "1.23 s".
std::string format_duration_ns(double ns);

}  // namespace spillway::perf
