// SyncGroup (api key 14), v0-5, flexible from v4: after JoinGroup, the
// leader sends every member's assignment; every member gets its own back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct SyncGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::kSyncGroup;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Assignment {
    std::string_view member_id;
    std::span<const std::byte> assignment;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Assignment::member_id>{"member_id"},
          Field<&Assignment::assignment>{"assignment"},
      };
    }
  };

  std::string_view group_id;
  int32_t generation_id = 0;
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // v3+, nullable
  std::optional<std::string_view> protocol_type;      // v5+, nullable
  std::optional<std::string_view> protocol_name;      // v5+, nullable
  Array<Assignment> assignments;                      // from the leader only

  static constexpr auto fields() {
    return std::tuple{
        Field<&SyncGroupRequest::group_id>{"group_id"},
        Field<&SyncGroupRequest::generation_id>{"generation_id"},
        Field<&SyncGroupRequest::member_id>{"member_id"},
        Field<&SyncGroupRequest::group_instance_id>{"group_instance_id", since(3), since(3)},
        Field<&SyncGroupRequest::protocol_type>{"protocol_type", since(5), since(5)},
        Field<&SyncGroupRequest::protocol_name>{"protocol_name", since(5), since(5)},
        Field<&SyncGroupRequest::assignments>{"assignments"},
    };
  }
};

struct SyncGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::kSyncGroup;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::optional<std::string_view> protocol_type;  // v5+, nullable
  std::optional<std::string_view> protocol_name;  // v5+, nullable
  std::span<const std::byte> assignment;

  static constexpr auto fields() {
    return std::tuple{
        Field<&SyncGroupResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&SyncGroupResponse::error_code>{"error_code"},
        Field<&SyncGroupResponse::protocol_type>{"protocol_type", since(5), since(5)},
        Field<&SyncGroupResponse::protocol_name>{"protocol_name", since(5), since(5)},
        Field<&SyncGroupResponse::assignment>{"assignment"},
    };
  }
};

}  // namespace spillway::kafka
