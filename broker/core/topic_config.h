// A topic's settings as stored in its metadata file
// (DATA_DIR/topics/NAME/topic.meta, written with
// storage::write_file_atomically), and topic-name rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "spillway/common/status.h"
#include "spillway/storage/log_config.h"

namespace spillway::broker {

struct TopicConfig {
  int32_t partitions = 1;
  storage::FlushPolicy flush_policy = storage::FlushPolicy::kInterval;
  int64_t retention_bytes = -1;  // -1 = unlimited
  int64_t retention_ms = -1;     // -1 = unlimited
  int64_t segment_bytes = int64_t{1} << 30;
};

inline constexpr int32_t kMaxPartitionsPerTopic = 65536;

// "durable" / "interval".
const char* flush_policy_name(storage::FlushPolicy policy) noexcept;
// Parses "durable" / "interval"; kInvalidArgument otherwise.
Result<storage::FlushPolicy> parse_flush_policy(std::string_view name);

// Ok iff `name` is a legal topic name: 1 to 249 bytes of [A-Za-z0-9._-],
// not "." or "..", not starting with ".deleted-" (reserved: deletion marks of
// older brokers). kInvalidArgument naming the problem otherwise.
Status validate_topic_name(std::string_view name);

// key=value lines; parse rejects unknown keys and out-of-range values.
std::string serialize_topic_config(const TopicConfig& config);
Result<TopicConfig> parse_topic_config(std::string_view text);

}  // namespace spillway::broker
