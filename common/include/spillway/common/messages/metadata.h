// Body codec of Metadata (api key 3, version 0): topics with their settings
// and each partition's log start offset, high watermark and error. Layout in
// docs/protocol.md ("Metadata").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/wire.h"

namespace spillway::messages {

inline constexpr int16_t kMetadataVersion = 0;

struct MetadataRequest {
  bool all_topics = true;              // on the wire: a topic count of -1
  WireArray<std::string_view> topics;  // used when !all_topics
};

Result<MetadataRequest> decode_metadata_request(std::span<const std::byte> body);
Status encode_metadata_request(const MetadataRequest& request, WriteBuffer& out) noexcept;

struct MetadataPartition {
  int32_t partition = 0;
  int64_t log_start_offset = 0;
  int64_t high_watermark = 0;
  // Why the partition cannot serve (corrupt_message: its log is damaged on
  // disk, see error_message); kOk when it can.
  ErrorCode error_code = ErrorCode::kOk;
  std::string_view error_message;

  static constexpr size_t kMinWireBytes = 4 + 8 + 8 + 2 + kStringHeaderBytes;
  static bool read(WireReader& r, MetadataPartition* out) noexcept;
  static void write(WireWriter& w, const MetadataPartition& v) noexcept;
};

struct MetadataTopic {
  std::string_view name;
  ErrorCode error_code = ErrorCode::kOk;
  std::string_view error_message;
  std::string_view flush_policy;  // "durable" | "interval"
  int64_t retention_bytes = -1;   // -1 = unlimited
  int64_t retention_ms = -1;      // -1 = unlimited
  WireArray<MetadataPartition> partitions;

  static constexpr size_t kMinWireBytes =
      kStringHeaderBytes + 2 + kStringHeaderBytes + kStringHeaderBytes + 8 + 8 + kArrayHeaderBytes;
  static bool read(WireReader& r, MetadataTopic* out) noexcept;
  static void write(WireWriter& w, const MetadataTopic& v) noexcept;
};

struct MetadataResponse {
  WireArray<MetadataTopic> topics;
};

Result<MetadataResponse> decode_metadata_response(std::span<const std::byte> body);
Status encode_metadata_response(const MetadataResponse& response, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
