// Body codecs of CreateTopics (api key 4) and DeleteTopics (api key 5),
// version 0. Both answer with an empty body; errors travel in the response
// frame header. Layout in docs/protocol.md ("CreateTopics", "DeleteTopics").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/wire.h"

namespace spillway::messages {

inline constexpr int16_t kCreateTopicsVersion = 0;
inline constexpr int16_t kDeleteTopicsVersion = 0;

// Sentinels of the numeric CreateTopics settings.
inline constexpr int64_t kUseBrokerDefault = -2;
inline constexpr int64_t kUnlimited = -1;

struct CreateTopicsRequest {
  std::string_view name;
  int32_t partitions = 1;
  std::string_view flush_policy;                // "" = broker default
  int64_t retention_bytes = kUseBrokerDefault;  // -1 unlimited
  int64_t retention_ms = kUseBrokerDefault;     // -1 unlimited
  int64_t segment_bytes = kUseBrokerDefault;
};

Result<CreateTopicsRequest> decode_create_topics_request(std::span<const std::byte> body);
Status encode_create_topics_request(const CreateTopicsRequest& request, WriteBuffer& out) noexcept;

struct DeleteTopicsRequest {
  std::string_view name;
};

Result<DeleteTopicsRequest> decode_delete_topics_request(std::span<const std::byte> body);
Status encode_delete_topics_request(const DeleteTopicsRequest& request, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
