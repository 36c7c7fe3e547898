// ListGroups (api key 16), v0-4, flexible from v3: the groups the broker
// coordinates, optionally only those in some states (v4+). v5+ (group
// types, KIP-848) is not served.
#pragma once

#include <cstdint>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct ListGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kListGroups;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  Array<std::string_view> states_filter;  // v4+; empty: every state

  static constexpr auto fields() {
    return std::tuple{Field<&ListGroupsRequest::states_filter>{"states_filter", since(4)}};
  }
};

struct ListGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kListGroups;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Group {
    std::string_view group_id;
    std::string_view protocol_type;
    std::string_view group_state;  // v4+

    static constexpr auto fields() {
      return std::tuple{
          Field<&Group::group_id>{"group_id"},
          Field<&Group::protocol_type>{"protocol_type"},
          Field<&Group::group_state>{"group_state", since(4)},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  Array<Group> groups;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ListGroupsResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&ListGroupsResponse::error_code>{"error_code"},
        Field<&ListGroupsResponse::groups>{"groups"},
    };
  }
};

}  // namespace spillway::kafka
