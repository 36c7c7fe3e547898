// Body codecs of CommitOffsets (api key 7) and FetchOffsets (api key 8),
// version 0: a consumer group's committed offsets per topic partition.
// Layout in docs/protocol.md ("CommitOffsets", "FetchOffsets").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/wire.h"

namespace spillway::messages {

inline constexpr int16_t kCommitOffsetsVersion = 0;
inline constexpr int16_t kFetchOffsetsVersion = 0;

struct CommitOffsetEntry {
  int32_t partition = 0;
  int64_t offset = 0;  // the next offset to consume

  static constexpr size_t kMinWireBytes = 4 + 8;
  static bool read(WireReader& r, CommitOffsetEntry* out) noexcept;
  static void write(WireWriter& w, const CommitOffsetEntry& v) noexcept;
};

struct CommitOffsetsTopic {
  std::string_view name;
  WireArray<CommitOffsetEntry> entries;

  static constexpr size_t kMinWireBytes = kStringHeaderBytes + kArrayHeaderBytes;
  static bool read(WireReader& r, CommitOffsetsTopic* out) noexcept;
  static void write(WireWriter& w, const CommitOffsetsTopic& v) noexcept;
};

struct CommitOffsetsRequest {
  std::string_view group;
  WireArray<CommitOffsetsTopic> topics;
};

Result<CommitOffsetsRequest> decode_commit_offsets_request(std::span<const std::byte> body);
Status encode_commit_offsets_request(const CommitOffsetsRequest& request,
                                     WriteBuffer& out) noexcept;

struct PartitionError {
  int32_t partition = 0;
  ErrorCode error_code = ErrorCode::kOk;
  std::string_view error_message;

  static constexpr size_t kMinWireBytes = 4 + 2 + kStringHeaderBytes;
  static bool read(WireReader& r, PartitionError* out) noexcept;
  static void write(WireWriter& w, const PartitionError& v) noexcept;
};

struct CommitOffsetsTopicResult {
  std::string_view name;
  WireArray<PartitionError> results;

  static constexpr size_t kMinWireBytes = kStringHeaderBytes + kArrayHeaderBytes;
  static bool read(WireReader& r, CommitOffsetsTopicResult* out) noexcept;
  static void write(WireWriter& w, const CommitOffsetsTopicResult& v) noexcept;
};

struct CommitOffsetsResponse {
  WireArray<CommitOffsetsTopicResult> topics;
};

Result<CommitOffsetsResponse> decode_commit_offsets_response(std::span<const std::byte> body);
Status encode_commit_offsets_response(const CommitOffsetsResponse& response,
                                      WriteBuffer& out) noexcept;

struct FetchOffsetsTopic {
  std::string_view name;
  WireArray<int32_t> partitions;

  static constexpr size_t kMinWireBytes = kStringHeaderBytes + kArrayHeaderBytes;
  static bool read(WireReader& r, FetchOffsetsTopic* out) noexcept;
  static void write(WireWriter& w, const FetchOffsetsTopic& v) noexcept;
};

struct FetchOffsetsRequest {
  std::string_view group;
  WireArray<FetchOffsetsTopic> topics;
};

Result<FetchOffsetsRequest> decode_fetch_offsets_request(std::span<const std::byte> body);
Status encode_fetch_offsets_request(const FetchOffsetsRequest& request, WriteBuffer& out) noexcept;

struct FetchOffsetsResult {
  int32_t partition = 0;
  int64_t offset = -1;  // -1 = none committed
  ErrorCode error_code = ErrorCode::kOk;
  std::string_view error_message;

  static constexpr size_t kMinWireBytes = 4 + 8 + 2 + kStringHeaderBytes;
  static bool read(WireReader& r, FetchOffsetsResult* out) noexcept;
  static void write(WireWriter& w, const FetchOffsetsResult& v) noexcept;
};

struct FetchOffsetsTopicResult {
  std::string_view name;
  WireArray<FetchOffsetsResult> results;

  static constexpr size_t kMinWireBytes = kStringHeaderBytes + kArrayHeaderBytes;
  static bool read(WireReader& r, FetchOffsetsTopicResult* out) noexcept;
  static void write(WireWriter& w, const FetchOffsetsTopicResult& v) noexcept;
};

struct FetchOffsetsResponse {
  WireArray<FetchOffsetsTopicResult> topics;
};

Result<FetchOffsetsResponse> decode_fetch_offsets_response(std::span<const std::byte> body);
Status encode_fetch_offsets_response(const FetchOffsetsResponse& response,
                                     WriteBuffer& out) noexcept;

}  // namespace spillway::messages
