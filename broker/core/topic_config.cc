// Topic metadata: its text form and the topic-name rules.
#include "topic_config.h"

#include <charconv>

#include "spillway/common/topic_name.h"

namespace spillway::broker {

namespace {

bool parse_i64(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

const char* flush_policy_name(storage::FlushPolicy policy) noexcept {
  return policy == storage::FlushPolicy::kDurable ? "durable" : "interval";
}

Result<storage::FlushPolicy> parse_flush_policy(std::string_view name) {
  if (name == "durable") return storage::FlushPolicy::kDurable;
  if (name == "interval") return storage::FlushPolicy::kInterval;
  return Status(
      ErrorCode::kInvalidArgument,
      "flush_policy must be \"durable\" or \"interval\", not \"" + std::string(name) + "\"");
}

Status validate_topic_name(std::string_view name) {
  return check_topic_name(name);  // the rules are shared with the CLI
}

std::string serialize_topic_config(const TopicConfig& c) {
  return "partitions=" + std::to_string(c.partitions) +
         "\nflush_policy=" + flush_policy_name(c.flush_policy) +
         "\nretention_bytes=" + std::to_string(c.retention_bytes) +
         "\nretention_ms=" + std::to_string(c.retention_ms) +
         "\nsegment_bytes=" + std::to_string(c.segment_bytes) + "\n";
}

Result<TopicConfig> parse_topic_config(std::string_view text) {
  TopicConfig c;
  bool have_partitions = false;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return Status(ErrorCode::kCorruptMessage, "topic metadata line without '='");
    }
    const std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
    int64_t n = 0;
    if (key == "flush_policy") {
      Result<storage::FlushPolicy> p = parse_flush_policy(value);
      if (!p.ok()) return Status(ErrorCode::kCorruptMessage, std::string(p.status().message()));
      c.flush_policy = *p;
      continue;
    }
    if (!parse_i64(value, &n)) {
      return Status(ErrorCode::kCorruptMessage,
                    "topic metadata: bad number for " + std::string(key));
    }
    if (key == "partitions" && n >= 1 && n <= kMaxPartitionsPerTopic) {
      c.partitions = static_cast<int32_t>(n);
      have_partitions = true;
    } else if (key == "retention_bytes" && n >= -1) {
      c.retention_bytes = n;
    } else if (key == "retention_ms" && n >= -1) {
      c.retention_ms = n;
    } else if (key == "segment_bytes" && n > 0) {
      c.segment_bytes = n;
    } else {
      return Status(ErrorCode::kCorruptMessage,
                    "topic metadata: unknown key or bad value: " + std::string(line));
    }
  }
  if (!have_partitions) return Status(ErrorCode::kCorruptMessage, "topic metadata: no partitions");
  return c;
}

}  // namespace spillway::broker
