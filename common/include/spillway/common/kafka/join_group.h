// JoinGroup (api key 11), v0-9, flexible from v6: a consumer joins a group
// (classic protocol); the leader's response carries every member's
// subscription metadata. v4+ expects a first join with an empty member id
// to fail with MEMBER_ID_REQUIRED and carry the id to use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct JoinGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::kJoinGroup;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Protocol {
    std::string_view name;  // an assignor, e.g. "range"
    std::span<const std::byte> metadata;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Protocol::name>{"name"},
          Field<&Protocol::metadata>{"metadata"},
      };
    }
  };

  std::string_view group_id;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;  // v1+
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // v5+, nullable
  std::string_view protocol_type;                     // "consumer"
  Array<Protocol> protocols;
  std::optional<std::string_view> reason;  // v8+, nullable

  static constexpr auto fields() {
    return std::tuple{
        Field<&JoinGroupRequest::group_id>{"group_id"},
        Field<&JoinGroupRequest::session_timeout_ms>{"session_timeout_ms"},
        Field<&JoinGroupRequest::rebalance_timeout_ms>{"rebalance_timeout_ms", since(1)},
        Field<&JoinGroupRequest::member_id>{"member_id"},
        Field<&JoinGroupRequest::group_instance_id>{"group_instance_id", since(5), since(5)},
        Field<&JoinGroupRequest::protocol_type>{"protocol_type"},
        Field<&JoinGroupRequest::protocols>{"protocols"},
        Field<&JoinGroupRequest::reason>{"reason", since(8), since(8)},
    };
  }
};

struct JoinGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::kJoinGroup;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Member {
    std::string_view member_id;
    std::optional<std::string_view> group_instance_id;  // v5+, nullable
    std::span<const std::byte> metadata;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Member::member_id>{"member_id"},
          Field<&Member::group_instance_id>{"group_instance_id", since(5), since(5)},
          Field<&Member::metadata>{"metadata"},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v2+
  int16_t error_code = 0;
  int32_t generation_id = -1;
  std::optional<std::string_view> protocol_type;  // v7+, nullable
  std::optional<std::string_view> protocol_name;  // nullable v7+
  std::string_view leader;
  bool skip_assignment = false;  // v9+
  std::string_view member_id;
  Array<Member> members;  // filled for the leader only

  static constexpr auto fields() {
    return std::tuple{
        Field<&JoinGroupResponse::throttle_time_ms>{"throttle_time_ms", since(2)},
        Field<&JoinGroupResponse::error_code>{"error_code"},
        Field<&JoinGroupResponse::generation_id>{"generation_id"},
        Field<&JoinGroupResponse::protocol_type>{"protocol_type", since(7), since(7)},
        Field<&JoinGroupResponse::protocol_name>{"protocol_name", kAllVersions, since(7)},
        Field<&JoinGroupResponse::leader>{"leader"},
        Field<&JoinGroupResponse::skip_assignment>{"skip_assignment", since(9)},
        Field<&JoinGroupResponse::member_id>{"member_id"},
        Field<&JoinGroupResponse::members>{"members"},
    };
  }
};

}  // namespace spillway::kafka
