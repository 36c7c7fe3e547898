// DeleteAcls (api key 31), v0-3, flexible from v2: remove the ACLs each
// filter matches; per filter, the ACLs it removed. v1 adds the pattern type
// (v0 means LITERAL).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct DeleteAclsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteAcls;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Filter {
    int8_t resource_type_filter = 0;
    std::optional<std::string_view> resource_name_filter;  // nullable: any
    int8_t pattern_type_filter = 3;                        // v1+
    std::optional<std::string_view> principal_filter;      // nullable: any
    std::optional<std::string_view> host_filter;           // nullable: any
    int8_t operation = 0;
    int8_t permission_type = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Filter::resource_type_filter>{"resource_type_filter"},
          Field<&Filter::resource_name_filter>{"resource_name_filter", kAllVersions, kAllVersions},
          Field<&Filter::pattern_type_filter>{"pattern_type_filter", since(1)},
          Field<&Filter::principal_filter>{"principal_filter", kAllVersions, kAllVersions},
          Field<&Filter::host_filter>{"host_filter", kAllVersions, kAllVersions},
          Field<&Filter::operation>{"operation"},
          Field<&Filter::permission_type>{"permission_type"},
      };
    }
  };

  Array<Filter> filters;

  static constexpr auto fields() {
    return std::tuple{Field<&DeleteAclsRequest::filters>{"filters"}};
  }
};

struct DeleteAclsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteAcls;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct MatchingAcl {
    int16_t error_code = 0;
    std::optional<std::string_view> error_message;  // nullable
    int8_t resource_type = 0;
    std::string_view resource_name;
    int8_t pattern_type = 3;  // v1+
    std::string_view principal;
    std::string_view host;
    int8_t operation = 0;
    int8_t permission_type = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&MatchingAcl::error_code>{"error_code"},
          Field<&MatchingAcl::error_message>{"error_message", kAllVersions, kAllVersions},
          Field<&MatchingAcl::resource_type>{"resource_type"},
          Field<&MatchingAcl::resource_name>{"resource_name"},
          Field<&MatchingAcl::pattern_type>{"pattern_type", since(1)},
          Field<&MatchingAcl::principal>{"principal"},
          Field<&MatchingAcl::host>{"host"},
          Field<&MatchingAcl::operation>{"operation"},
          Field<&MatchingAcl::permission_type>{"permission_type"},
      };
    }
  };

  struct FilterResult {
    int16_t error_code = 0;
    std::optional<std::string_view> error_message;  // nullable
    Array<MatchingAcl> matching_acls;

    static constexpr auto fields() {
      return std::tuple{
          Field<&FilterResult::error_code>{"error_code"},
          Field<&FilterResult::error_message>{"error_message", kAllVersions, kAllVersions},
          Field<&FilterResult::matching_acls>{"matching_acls"},
      };
    }
  };

  int32_t throttle_time_ms = 0;
  Array<FilterResult> filter_results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DeleteAclsResponse::throttle_time_ms>{"throttle_time_ms"},
        Field<&DeleteAclsResponse::filter_results>{"filter_results"},
    };
  }
};

}  // namespace spillway::kafka
