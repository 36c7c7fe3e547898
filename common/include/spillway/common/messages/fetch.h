// Body codec of Fetch (api key 2, version 0): read stored batches from
// offsets, with a long poll. Layout and semantics in docs/protocol.md
// ("Fetch"). Decoded structs view the body; encodable ones view caller data.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/wire.h"

namespace spillway::messages {

inline constexpr int16_t kFetchVersion = 0;

struct FetchPartitionRequest {
  int32_t partition = 0;
  int64_t fetch_offset = 0;
  int32_t partition_max_bytes = 0;

  static constexpr size_t kMinWireBytes = 4 + 8 + 4;
  static bool read(WireReader& r, FetchPartitionRequest* out) noexcept;
  static void write(WireWriter& w, const FetchPartitionRequest& v) noexcept;
};

struct FetchTopicRequest {
  std::string_view name;
  WireArray<FetchPartitionRequest> partitions;

  static constexpr size_t kMinWireBytes = kStringHeaderBytes + kArrayHeaderBytes;
  static bool read(WireReader& r, FetchTopicRequest* out) noexcept;
  static void write(WireWriter& w, const FetchTopicRequest& v) noexcept;
};

struct FetchRequest {
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0;
  WireArray<FetchTopicRequest> topics;
};

// Errors: kCorruptMessage naming what is malformed.
Result<FetchRequest> decode_fetch_request(std::span<const std::byte> body);
Status encode_fetch_request(const FetchRequest& request, WriteBuffer& out) noexcept;

struct FetchPartitionResult {
  int32_t partition = 0;
  ErrorCode error_code = ErrorCode::kOk;
  std::string_view error_message;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  // Zero or more whole stored RecordBatch v2 batches, verbatim. The first
  // may start before the fetch offset.
  std::span<const std::byte> records;

  static constexpr size_t kMinWireBytes = 4 + 2 + kStringHeaderBytes + 8 + 8 + kBytesHeaderBytes;
  static bool read(WireReader& r, FetchPartitionResult* out) noexcept;
  static void write(WireWriter& w, const FetchPartitionResult& v) noexcept;
};

struct FetchTopicResult {
  std::string_view name;
  WireArray<FetchPartitionResult> results;

  static constexpr size_t kMinWireBytes = kStringHeaderBytes + kArrayHeaderBytes;
  static bool read(WireReader& r, FetchTopicResult* out) noexcept;
  static void write(WireWriter& w, const FetchTopicResult& v) noexcept;
};

struct FetchResponse {
  WireArray<FetchTopicResult> topics;
};

Result<FetchResponse> decode_fetch_response(std::span<const std::byte> body);
Status encode_fetch_response(const FetchResponse& response, WriteBuffer& out) noexcept;

// Writes the fixed fields of one partition result up to and including the
// [i32 length] of `records`; the caller then appends exactly `records_bytes`
// bytes (e.g. read straight from a log segment into the buffer).
void write_fetch_partition_header(WireWriter& w, const FetchPartitionResult& v,
                                  int32_t records_bytes) noexcept;

}  // namespace spillway::messages
