// Body codec of Metadata (api key 3, versions 0-1): topics with their
// settings and each partition's log start offset, high watermark and state;
// version 1 adds each partition's size on disk. Layout in docs/protocol.md
// ("Metadata").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kMetadataVersion = 0;
inline constexpr int16_t kMetadataMaxVersion = 1;  // adds MetadataPartition::size_bytes

// The request as callers use it; on the wire "all topics" is a null topic
// array (MetadataRequestBody).
struct MetadataRequest {
  bool all_topics = true;
  Array<std::string_view> topics;  // used when !all_topics
};

struct MetadataRequestBody {
  Array<std::string_view> topics;  // null = every topic

  static constexpr auto fields() {
    return std::tuple{
        Field<&MetadataRequestBody::topics>{"topics", wire::kAllVersions, wire::kAllVersions}};
  }
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
  ErrorText error_message;
  // v1: bytes of the partition's log (its segment files) on the answering
  // broker's disk; -1 in a v0 answer, which does not carry it.
  int64_t size_bytes = -1;

  static constexpr auto fields() {
    return std::tuple{
        Field<&MetadataPartition::partition>{"partition"},
        Field<&MetadataPartition::log_start_offset>{"log_start_offset"},
        Field<&MetadataPartition::high_watermark>{"high_watermark"},
        Field<&MetadataPartition::error_code>{"error_code"},
        Field<&MetadataPartition::error_message>{"error_message"},
        Field<&MetadataPartition::size_bytes>{"size_bytes", wire::since(1)},
    };
  }
};

struct MetadataTopic {
  std::string_view name;
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;
  std::string_view flush_policy;  // "durable" | "interval"
  int64_t retention_bytes = -1;   // -1 = unlimited
  int64_t retention_ms = -1;      // -1 = unlimited
  Array<MetadataPartition> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&MetadataTopic::name>{"name"},
        Field<&MetadataTopic::error_code>{"error_code"},
        Field<&MetadataTopic::error_message>{"error_message"},
        Field<&MetadataTopic::flush_policy>{"flush_policy"},
        Field<&MetadataTopic::retention_bytes>{"retention_bytes"},
        Field<&MetadataTopic::retention_ms>{"retention_ms"},
        Field<&MetadataTopic::partitions>{"partitions"},
    };
  }
};

struct MetadataResponse {
  Array<MetadataTopic> topics;

  static constexpr auto fields() { return std::tuple{Field<&MetadataResponse::topics>{"topics"}}; }
};

// `version`: the request's (0 or 1); the request body is the same in both.
Result<MetadataResponse> decode_metadata_response(std::span<const std::byte> body,
                                                  int16_t version = kMetadataVersion);
Status encode_metadata_response(const MetadataResponse& response, WriteBuffer& out,
                                int16_t version = kMetadataVersion) noexcept;

}  // namespace spillway::messages
