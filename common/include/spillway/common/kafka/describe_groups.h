// DescribeGroups (api key 15), v0-5, flexible from v5: the state, protocol
// and members of consumer groups.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct DescribeGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeGroups;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  Array<std::string_view> groups;
  bool include_authorized_operations = false;  // v3+

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribeGroupsRequest::groups>{"groups"},
        Field<&DescribeGroupsRequest::include_authorized_operations>{
            "include_authorized_operations", since(3)},
    };
  }
};

struct DescribeGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeGroups;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Member {
    std::string_view member_id;
    std::optional<std::string_view> group_instance_id;  // v4+, nullable
    std::string_view client_id;
    std::string_view client_host;
    std::span<const std::byte> member_metadata;
    std::span<const std::byte> member_assignment;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Member::member_id>{"member_id"},
          Field<&Member::group_instance_id>{"group_instance_id", since(4), since(4)},
          Field<&Member::client_id>{"client_id"},
          Field<&Member::client_host>{"client_host"},
          Field<&Member::member_metadata>{"member_metadata"},
          Field<&Member::member_assignment>{"member_assignment"},
      };
    }
  };
  struct Group {
    int16_t error_code = 0;
    std::string_view group_id;
    std::string_view group_state;
    std::string_view protocol_type;
    std::string_view protocol_data;
    Array<Member> members;
    int32_t authorized_operations = INT32_MIN;  // v3+

    static constexpr auto fields() {
      return std::tuple{
          Field<&Group::error_code>{"error_code"},
          Field<&Group::group_id>{"group_id"},
          Field<&Group::group_state>{"group_state"},
          Field<&Group::protocol_type>{"protocol_type"},
          Field<&Group::protocol_data>{"protocol_data"},
          Field<&Group::members>{"members"},
          Field<&Group::authorized_operations>{"authorized_operations", since(3)},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v1+
  Array<Group> groups;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribeGroupsResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&DescribeGroupsResponse::groups>{"groups"},
    };
  }
};

}  // namespace spillway::kafka
