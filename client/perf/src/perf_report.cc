// Rendering of PerfResult as a table and as JSON.
#include "spillway/perf/perf_report.h"

#include <cmath>
#include <cstdio>

namespace spillway::perf {

namespace {

// Appends printf-formatted text; the report is built once, after the run.
template <typename... Args>
void appendf(std::string& out, const char* format, Args... args) {
  char buffer[256];
  const int n = std::snprintf(buffer, sizeof buffer, format, args...);
  if (n > 0) out.append(buffer, static_cast<size_t>(n) < sizeof buffer ? n : sizeof buffer - 1);
}

void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          appendf(out, "\\u%04x", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// JSON has no NaN or infinity; a rate over zero time is reported as 0.
double finite(double v) {
  return std::isfinite(v) ? v : 0.0;
}

}  // namespace

double PerfResult::messages_per_second() const noexcept {
  if (elapsed_ns == 0) return 0.0;
  return static_cast<double>(messages) * 1e9 / static_cast<double>(elapsed_ns);
}

double PerfResult::megabytes_per_second() const noexcept {
  if (elapsed_ns == 0) return 0.0;
  return static_cast<double>(bytes) * 1e3 / static_cast<double>(elapsed_ns);
}

std::string group_thousands(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  const size_t lead = digits.size() % 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i + 3 - lead) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_duration_ns(double ns) {
  std::string out;
  if (ns < 1e3) {
    appendf(out, "%.0f ns", ns);
  } else if (ns < 1e6) {
    appendf(out, "%.1f us", ns / 1e3);
  } else if (ns < 1e9) {
    appendf(out, "%.2f ms", ns / 1e6);
  } else {
    appendf(out, "%.2f s", ns / 1e9);
  }
  return out;
}

std::string format_table(const PerfResult& r) {
  std::string out;
  appendf(out, "%s: %s msgs of %u B in %.2f s  %s msg/s  %.2f MB/s", r.mode.c_str(),
          group_thousands(r.messages).c_str(), r.message_bytes,
          static_cast<double>(r.elapsed_ns) / 1e9,
          group_thousands(static_cast<uint64_t>(finite(r.messages_per_second()))).c_str(),
          finite(r.megabytes_per_second()));
  if (r.target_rate != 0)
    appendf(out, "  (target %s msg/s)", group_thousands(r.target_rate).c_str());
  if (r.errors != 0) appendf(out, "  %s errors", group_thousands(r.errors).c_str());
  out += '\n';
  if (r.latency != nullptr && r.latency->count() != 0) {
    const LatencyHistogram& h = *r.latency;
    appendf(out, "latency from %s:", r.latency_origin.c_str());
    for (double p : kReportedPercentiles) {
      appendf(out, "  p%g %s", p,
              format_duration_ns(static_cast<double>(h.value_at_percentile(p))).c_str());
    }
    appendf(out, "  max %s\n", format_duration_ns(static_cast<double>(h.max())).c_str());
  }
  return out;
}

std::string format_json(const PerfResult& r) {
  std::string out = "{\"mode\":";
  append_json_string(out, r.mode);
  appendf(out, ",\"messages\":%llu,\"bytes\":%llu,\"errors\":%llu,\"elapsed_s\":%.6f",
          static_cast<unsigned long long>(r.messages), static_cast<unsigned long long>(r.bytes),
          static_cast<unsigned long long>(r.errors), static_cast<double>(r.elapsed_ns) / 1e9);
  appendf(out, ",\"message_bytes\":%u,\"producers\":%u,\"consumers\":%u,\"target_rate\":%llu",
          r.message_bytes, r.producers, r.consumers,
          static_cast<unsigned long long>(r.target_rate));
  appendf(out, ",\"messages_per_s\":%.1f,\"mb_per_s\":%.3f", finite(r.messages_per_second()),
          finite(r.megabytes_per_second()));
  // Only a latency that was measured: an empty histogram would print zeros.
  if (r.latency != nullptr && r.latency->count() != 0) {
    const LatencyHistogram& h = *r.latency;
    out += ",\"latency_origin\":";
    append_json_string(out, r.latency_origin);
    out += ",\"latency_us\":{";
    for (double p : kReportedPercentiles) {
      // %g prints 50 as "50" and 99.9 as "99.9": keys p50, p90, p99, p99.9.
      appendf(out, "\"p%g\":%.3f,", p, static_cast<double>(h.value_at_percentile(p)) / 1e3);
    }
    appendf(out, "\"max\":%.3f,\"mean\":%.3f,\"count\":%llu}", static_cast<double>(h.max()) / 1e3,
            h.mean() / 1e3, static_cast<unsigned long long>(h.count()));
  }
  out += "}\n";
  return out;
}

}  // namespace spillway::perf
