// DescribeAcls (api key 29), v0-3, flexible from v2: the ACLs one filter
// matches, grouped by resource pattern. v1 adds the pattern type (v0 means
// LITERAL); the enum fields carry Kafka's ACL codes
// (broker/security/acl_types.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct DescribeAclsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeAcls;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  int8_t resource_type_filter = 0;
  std::optional<std::string_view> resource_name_filter;  // nullable: any
  int8_t pattern_type_filter = 3;                        // v1+; v0: LITERAL
  std::optional<std::string_view> principal_filter;      // nullable: any
  std::optional<std::string_view> host_filter;           // nullable: any
  int8_t operation = 0;
  int8_t permission_type = 0;

  static constexpr auto fields() {
    using R = DescribeAclsRequest;
    return std::tuple{
        Field<&R::resource_type_filter>{"resource_type_filter"},
        Field<&R::resource_name_filter>{"resource_name_filter", kAllVersions, kAllVersions},
        Field<&R::pattern_type_filter>{"pattern_type_filter", since(1)},
        Field<&R::principal_filter>{"principal_filter", kAllVersions, kAllVersions},
        Field<&R::host_filter>{"host_filter", kAllVersions, kAllVersions},
        Field<&R::operation>{"operation"},
        Field<&R::permission_type>{"permission_type"},
    };
  }
};

struct DescribeAclsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeAcls;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Acl {
    std::string_view principal;
    std::string_view host;
    int8_t operation = 0;
    int8_t permission_type = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Acl::principal>{"principal"},
          Field<&Acl::host>{"host"},
          Field<&Acl::operation>{"operation"},
          Field<&Acl::permission_type>{"permission_type"},
      };
    }
  };

  struct Resource {
    int8_t resource_type = 0;
    std::string_view resource_name;
    int8_t pattern_type = 3;  // v1+
    Array<Acl> acls;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Resource::resource_type>{"resource_type"},
          Field<&Resource::resource_name>{"resource_name"},
          Field<&Resource::pattern_type>{"pattern_type", since(1)},
          Field<&Resource::acls>{"acls"},
      };
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string_view> error_message;  // nullable
  Array<Resource> resources;

  static constexpr auto fields() {
    using R = DescribeAclsResponse;
    return std::tuple{
        Field<&R::throttle_time_ms>{"throttle_time_ms"},
        Field<&R::error_code>{"error_code"},
        Field<&R::error_message>{"error_message", kAllVersions, kAllVersions},
        Field<&R::resources>{"resources"},
    };
  }
};

}  // namespace spillway::kafka
