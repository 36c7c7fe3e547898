// Body codec of Produce (api key 1, version 0): batches for partitions of
// topics, and a result per partition written to. Layout and semantics in
// docs/protocol.md ("Produce").
//
// The same structs serve both directions: decode_* fills them with views into
// the body (valid as long as the body), and encode_* reads them from views of
// caller-owned data (Array over a span).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kProduceVersion = 0;

// Request acks levels.
enum class Acks : int8_t {
  kNone = 0,     // answered once validated, before the append (base_offset -1)
  kLeader = 1,   // answered after the append
  kDurable = 2,  // answered after an fdatasync covers the append
  // Kafka's acks=-1: in a replicated cluster answered once the high
  // watermark covers the append (refused before it when the ISR is below
  // min_insync_replicas); a standalone broker treats it as kDurable.
  kAll = -1,
};

// Partition -1: the broker routes each record by key.
inline constexpr int32_t kRouteByKey = -1;

struct ProducePartitionData {
  int32_t partition = kRouteByKey;
  std::span<const std::byte> record_batch;  // exactly one RecordBatch v2

  static constexpr auto fields() {
    return std::tuple{
        Field<&ProducePartitionData::partition>{"partition"},
        Field<&ProducePartitionData::record_batch>{"record_batch"},
    };
  }
};

struct ProduceTopicData {
  std::string_view name;
  Array<ProducePartitionData> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ProduceTopicData::name>{"name"},
        Field<&ProduceTopicData::partitions>{"partitions"},
    };
  }
};

struct ProduceRequest {
  Acks acks = Acks::kLeader;
  int32_t timeout_ms = 0;
  Array<ProduceTopicData> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ProduceRequest::acks>{"acks"},
        Field<&ProduceRequest::timeout_ms>{"timeout_ms"},
        Field<&ProduceRequest::topics>{"topics"},
    };
  }
};

// Errors: kCorruptMessage naming what is malformed. (The client streams its
// requests with ProduceRequestWriter, which writes the same bytes.)
Result<ProduceRequest> decode_produce_request(std::span<const std::byte> body);
Status encode_produce_request(const ProduceRequest& request, WriteBuffer& out) noexcept;

struct ProducePartitionResult {
  int32_t partition = 0;  // the actual partition
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;
  int64_t base_offset = -1;  // -1 with acks none or on error
  int32_t record_count = 0;
  int64_t log_start_offset = -1;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ProducePartitionResult::partition>{"partition"},
        Field<&ProducePartitionResult::error_code>{"error_code"},
        Field<&ProducePartitionResult::error_message>{"error_message"},
        Field<&ProducePartitionResult::base_offset>{"base_offset"},
        Field<&ProducePartitionResult::record_count>{"record_count"},
        Field<&ProducePartitionResult::log_start_offset>{"log_start_offset"},
    };
  }
};

struct ProduceTopicResult {
  std::string_view name;
  Array<ProducePartitionResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ProduceTopicResult::name>{"name"},
        Field<&ProduceTopicResult::results>{"results"},
    };
  }
};

struct ProduceResponse {
  Array<ProduceTopicResult> topics;

  static constexpr auto fields() { return std::tuple{Field<&ProduceResponse::topics>{"topics"}}; }
};

Result<ProduceResponse> decode_produce_response(std::span<const std::byte> body);
Status encode_produce_response(const ProduceResponse& response, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
