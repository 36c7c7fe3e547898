// DescribeConfigs (api key 32), v0-4, flexible from v4: the configs of
// topics (resource type 2) and brokers (4), optionally with their synonyms
// (v1+) and documentation (v3+).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

inline constexpr int8_t kConfigResourceTopic = 2;
inline constexpr int8_t kConfigResourceBroker = 4;

struct DescribeConfigsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeConfigs;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Resource {
    int8_t resource_type = 0;
    std::string_view resource_name;
    Array<std::string_view> configuration_keys;  // nullable: every key

    static constexpr auto fields() {
      return std::tuple{
          Field<&Resource::resource_type>{"resource_type"},
          Field<&Resource::resource_name>{"resource_name"},
          Field<&Resource::configuration_keys>{"configuration_keys", kAllVersions, kAllVersions},
      };
    }
  };

  Array<Resource> resources;
  bool include_synonyms = false;       // v1+
  bool include_documentation = false;  // v3+

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribeConfigsRequest::resources>{"resources"},
        Field<&DescribeConfigsRequest::include_synonyms>{"include_synonyms", since(1)},
        Field<&DescribeConfigsRequest::include_documentation>{"include_documentation", since(3)},
    };
  }
};

struct DescribeConfigsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeConfigs;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Synonym {
    std::string_view name;
    std::optional<std::string_view> value;  // nullable
    int8_t source = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Synonym::name>{"name"},
          Field<&Synonym::value>{"value", kAllVersions, kAllVersions},
          Field<&Synonym::source>{"source"},
      };
    }
  };
  struct Config {
    std::string_view name;
    std::optional<std::string_view> value;  // nullable
    bool read_only = false;
    bool is_default = false;    // v0 only (v1+: config_source)
    int8_t config_source = -1;  // v1+
    bool is_sensitive = false;
    Array<Synonym> synonyms;                        // v1+
    int8_t config_type = 0;                         // v3+
    std::optional<std::string_view> documentation;  // v3+, nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Config::name>{"name"},
          Field<&Config::value>{"value", kAllVersions, kAllVersions},
          Field<&Config::read_only>{"read_only"},
          Field<&Config::is_default>{"is_default", between(0, 0)},
          Field<&Config::config_source>{"config_source", since(1)},
          Field<&Config::is_sensitive>{"is_sensitive"},
          Field<&Config::synonyms>{"synonyms", since(1)},
          Field<&Config::config_type>{"config_type", since(3)},
          Field<&Config::documentation>{"documentation", since(3), kAllVersions},
      };
    }
  };
  struct ResourceResult {
    int16_t error_code = 0;
    std::optional<std::string_view> error_message;  // nullable
    int8_t resource_type = 0;
    std::string_view resource_name;
    Array<Config> configs;

    static constexpr auto fields() {
      return std::tuple{
          Field<&ResourceResult::error_code>{"error_code"},
          Field<&ResourceResult::error_message>{"error_message", kAllVersions, kAllVersions},
          Field<&ResourceResult::resource_type>{"resource_type"},
          Field<&ResourceResult::resource_name>{"resource_name"},
          Field<&ResourceResult::configs>{"configs"},
      };
    }
  };

  int32_t throttle_time_ms = 0;
  Array<ResourceResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribeConfigsResponse::throttle_time_ms>{"throttle_time_ms"},
        Field<&DescribeConfigsResponse::results>{"results"},
    };
  }
};

}  // namespace spillway::kafka
