// DeleteGroups (api key 42), v0-2, flexible from v2: delete empty consumer
// groups and their committed offsets.
#pragma once

#include <cstdint>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct DeleteGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteGroups;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  Array<std::string_view> groups_names;

  static constexpr auto fields() {
    return std::tuple{Field<&DeleteGroupsRequest::groups_names>{"groups_names"}};
  }
};

struct DeleteGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteGroups;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct GroupResult {
    std::string_view group_id;
    int16_t error_code = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&GroupResult::group_id>{"group_id"},
          Field<&GroupResult::error_code>{"error_code"},
      };
    }
  };

  int32_t throttle_time_ms = 0;
  Array<GroupResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DeleteGroupsResponse::throttle_time_ms>{"throttle_time_ms"},
        Field<&DeleteGroupsResponse::results>{"results"},
    };
  }
};

}  // namespace spillway::kafka
