// InitProducerId (api key 22), v0-4, flexible from v2: a producer id and
// epoch for an idempotent (or transactional) producer. From v3 a producer
// may pass its current id and epoch to have the epoch bumped instead of
// getting a new id.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct InitProducerIdRequest {
  static constexpr ApiKey kApiKey = ApiKey::kInitProducerId;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  std::optional<std::string_view> transactional_id;  // nullable: idempotence only
  int32_t transaction_timeout_ms = 0;
  int64_t producer_id = -1;     // v3+
  int16_t producer_epoch = -1;  // v3+

  static constexpr auto fields() {
    return std::tuple{
        Field<&InitProducerIdRequest::transactional_id>{"transactional_id", kAllVersions,
                                                        kAllVersions},
        Field<&InitProducerIdRequest::transaction_timeout_ms>{"transaction_timeout_ms"},
        Field<&InitProducerIdRequest::producer_id>{"producer_id", since(3)},
        Field<&InitProducerIdRequest::producer_epoch>{"producer_epoch", since(3)},
    };
  }
};

struct InitProducerIdResponse {
  static constexpr ApiKey kApiKey = ApiKey::kInitProducerId;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = 0;

  static constexpr auto fields() {
    return std::tuple{
        Field<&InitProducerIdResponse::throttle_time_ms>{"throttle_time_ms"},
        Field<&InitProducerIdResponse::error_code>{"error_code"},
        Field<&InitProducerIdResponse::producer_id>{"producer_id"},
        Field<&InitProducerIdResponse::producer_epoch>{"producer_epoch"},
    };
  }
};

}  // namespace spillway::kafka
