// CreateAcls (api key 30), v0-3, flexible from v2: add ACLs, one result per
// creation in the request's order. v1 adds the pattern type (v0 means
// LITERAL).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct CreateAclsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kCreateAcls;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Creation {
    int8_t resource_type = 0;
    std::string_view resource_name;
    int8_t resource_pattern_type = 3;  // v1+
    std::string_view principal;
    std::string_view host;
    int8_t operation = 0;
    int8_t permission_type = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Creation::resource_type>{"resource_type"},
          Field<&Creation::resource_name>{"resource_name"},
          Field<&Creation::resource_pattern_type>{"resource_pattern_type", since(1)},
          Field<&Creation::principal>{"principal"},
          Field<&Creation::host>{"host"},
          Field<&Creation::operation>{"operation"},
          Field<&Creation::permission_type>{"permission_type"},
      };
    }
  };

  Array<Creation> creations;

  static constexpr auto fields() {
    return std::tuple{Field<&CreateAclsRequest::creations>{"creations"}};
  }
};

struct CreateAclsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kCreateAcls;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Result {
    int16_t error_code = 0;
    std::optional<std::string_view> error_message;  // nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Result::error_code>{"error_code"},
          Field<&Result::error_message>{"error_message", kAllVersions, kAllVersions},
      };
    }
  };

  int32_t throttle_time_ms = 0;
  Array<Result> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&CreateAclsResponse::throttle_time_ms>{"throttle_time_ms"},
        Field<&CreateAclsResponse::results>{"results"},
    };
  }
};

}  // namespace spillway::kafka
