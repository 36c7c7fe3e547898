// Heartbeat (api key 12), v0-4, flexible from v4: a group member is alive;
// the error tells it to rejoin (REBALANCE_IN_PROGRESS) or that it is gone.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct HeartbeatRequest {
  static constexpr ApiKey kApiKey = ApiKey::kHeartbeat;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  std::string_view group_id;
  int32_t generation_id = 0;
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // v3+, nullable

  static constexpr auto fields() {
    return std::tuple{
        Field<&HeartbeatRequest::group_id>{"group_id"},
        Field<&HeartbeatRequest::generation_id>{"generation_id"},
        Field<&HeartbeatRequest::member_id>{"member_id"},
        Field<&HeartbeatRequest::group_instance_id>{"group_instance_id", since(3), since(3)},
    };
  }
};

struct HeartbeatResponse {
  static constexpr ApiKey kApiKey = ApiKey::kHeartbeat;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;

  static constexpr auto fields() {
    return std::tuple{
        Field<&HeartbeatResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&HeartbeatResponse::error_code>{"error_code"},
    };
  }
};

}  // namespace spillway::kafka
