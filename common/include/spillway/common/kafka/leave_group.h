// LeaveGroup (api key 13), v0-5, flexible from v4: members leave a group.
// v0-2 name one member; v3+ a batch of members (with static instance ids).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct LeaveGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::kLeaveGroup;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Member {
    std::string_view member_id;
    std::optional<std::string_view> group_instance_id;  // nullable
    std::optional<std::string_view> reason;             // v5+, nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Member::member_id>{"member_id"},
          Field<&Member::group_instance_id>{"group_instance_id", kAllVersions, kAllVersions},
          Field<&Member::reason>{"reason", since(5), since(5)},
      };
    }
  };

  std::string_view group_id;
  std::string_view member_id;  // v0-2
  Array<Member> members;       // v3+

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaveGroupRequest::group_id>{"group_id"},
        Field<&LeaveGroupRequest::member_id>{"member_id", between(0, 2)},
        Field<&LeaveGroupRequest::members>{"members", since(3)},
    };
  }
};

struct LeaveGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::kLeaveGroup;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Member {
    std::string_view member_id;
    std::optional<std::string_view> group_instance_id;  // nullable
    int16_t error_code = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Member::member_id>{"member_id"},
          Field<&Member::group_instance_id>{"group_instance_id", kAllVersions, kAllVersions},
          Field<&Member::error_code>{"error_code"},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  Array<Member> members;  // v3+

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaveGroupResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&LeaveGroupResponse::error_code>{"error_code"},
        Field<&LeaveGroupResponse::members>{"members", since(3)},
    };
  }
};

}  // namespace spillway::kafka
