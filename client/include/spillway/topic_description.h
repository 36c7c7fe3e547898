// What the broker reports about a topic (its Metadata answer), shared by
// Admin (describe/list) and the Consumer (log start / high watermark).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spillway/common/status.h"

namespace spillway {

struct PartitionDescription {
  int32_t partition = 0;
  int64_t log_start_offset = 0;  // first offset still stored
  int64_t high_watermark = 0;    // offset the next record will get
  // kOk, or why the partition serves nothing: kCorruptMessage when its log
  // is damaged on disk and waits for `spillway-broker repair`.
  ErrorCode error = ErrorCode::kOk;
  std::string error_message;  // names the damaged offsets; "" when error is kOk
  // Bytes of its log on the broker's disk (Admin's answers); -1 when not
  // known (the Consumer's, or a broker from before Metadata version 1).
  int64_t size_bytes = -1;
};

struct TopicDescription {
  std::string name;
  std::string flush_policy;      // "durable" or "interval"
  int64_t retention_bytes = -1;  // -1 = unlimited
  int64_t retention_ms = -1;     // -1 = unlimited
  std::vector<PartitionDescription> partitions;
};

}  // namespace spillway
