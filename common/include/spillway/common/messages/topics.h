// Body codecs of CreateTopics (api key 4; version 1 adds the replication
// factor, for a replicated cluster) and DeleteTopics (api key 5), version
// 0: one topic per request; the answer is the frame header's error
// code alone (empty body). Layouts in docs/protocol.md.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kCreateTopicsVersion = 0;
inline constexpr int16_t kCreateTopicsMaxVersion = 1;
inline constexpr int16_t kDeleteTopicsVersion = 0;

// Numeric settings: this value means "use the broker's default".
inline constexpr int64_t kUseBrokerDefault = -2;
inline constexpr int64_t kUnlimited = -1;

struct CreateTopicsRequest {
  std::string_view name;
  int32_t partitions = 1;
  std::string_view flush_policy;                // "" = broker default
  int64_t retention_bytes = kUseBrokerDefault;  // -1 unlimited
  int64_t retention_ms = kUseBrokerDefault;     // -1 unlimited
  int64_t segment_bytes = kUseBrokerDefault;
  int32_t replication_factor = -1;  // v1+; -1 = the cluster's default

  static constexpr auto fields() {
    return std::tuple{
        Field<&CreateTopicsRequest::name>{"name"},
        Field<&CreateTopicsRequest::partitions>{"partitions"},
        Field<&CreateTopicsRequest::flush_policy>{"flush_policy"},
        Field<&CreateTopicsRequest::retention_bytes>{"retention_bytes"},
        Field<&CreateTopicsRequest::retention_ms>{"retention_ms"},
        Field<&CreateTopicsRequest::segment_bytes>{"segment_bytes"},
        Field<&CreateTopicsRequest::replication_factor>{"replication_factor", wire::since(1)},
    };
  }
};

Result<CreateTopicsRequest> decode_create_topics_request(std::span<const std::byte> body,
                                                         int16_t version = 0);
Status encode_create_topics_request(const CreateTopicsRequest& request, WriteBuffer& out,
                                    int16_t version = 0) noexcept;

struct DeleteTopicsRequest {
  std::string_view name;

  static constexpr auto fields() { return std::tuple{Field<&DeleteTopicsRequest::name>{"name"}}; }
};

Result<DeleteTopicsRequest> decode_delete_topics_request(std::span<const std::byte> body);
Status encode_delete_topics_request(const DeleteTopicsRequest& request, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
