// Body codec of Fetch (api key 2, version 0): read stored batches from
// offsets, with a long poll. Layout and semantics in docs/protocol.md
// ("Fetch"). Decoded structs view the body; encodable ones view caller data.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kFetchVersion = 0;

struct FetchPartitionRequest {
  int32_t partition = 0;
  int64_t fetch_offset = 0;
  int32_t partition_max_bytes = 0;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchPartitionRequest::partition>{"partition"},
        Field<&FetchPartitionRequest::fetch_offset>{"fetch_offset"},
        Field<&FetchPartitionRequest::partition_max_bytes>{"partition_max_bytes"},
    };
  }
};

struct FetchTopicRequest {
  std::string_view name;
  Array<FetchPartitionRequest> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchTopicRequest::name>{"name"},
        Field<&FetchTopicRequest::partitions>{"partitions"},
    };
  }
};

struct FetchRequest {
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0;
  Array<FetchTopicRequest> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchRequest::max_wait_ms>{"max_wait_ms"},
        Field<&FetchRequest::min_bytes>{"min_bytes"},
        Field<&FetchRequest::max_bytes>{"max_bytes"},
        Field<&FetchRequest::topics>{"topics"},
    };
  }
};

// Errors: kCorruptMessage naming what is malformed.
Result<FetchRequest> decode_fetch_request(std::span<const std::byte> body);
Status encode_fetch_request(const FetchRequest& request, WriteBuffer& out) noexcept;

struct FetchPartitionResult {
  int32_t partition = 0;
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  // Zero or more whole stored RecordBatch v2 batches, verbatim. The first
  // may start before the fetch offset. The broker writes them straight
  // from the log (Records::write_deferred).
  Records records;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchPartitionResult::partition>{"partition"},
        Field<&FetchPartitionResult::error_code>{"error_code"},
        Field<&FetchPartitionResult::error_message>{"error_message"},
        Field<&FetchPartitionResult::high_watermark>{"high_watermark"},
        Field<&FetchPartitionResult::log_start_offset>{"log_start_offset"},
        Field<&FetchPartitionResult::records>{"records"},
    };
  }
};

struct FetchTopicResult {
  std::string_view name;
  Array<FetchPartitionResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchTopicResult::name>{"name"},
        Field<&FetchTopicResult::results>{"results"},
    };
  }
};

struct FetchResponse {
  Array<FetchTopicResult> topics;

  static constexpr auto fields() { return std::tuple{Field<&FetchResponse::topics>{"topics"}}; }
};

Result<FetchResponse> decode_fetch_response(std::span<const std::byte> body);
Status encode_fetch_response(const FetchResponse& response, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
