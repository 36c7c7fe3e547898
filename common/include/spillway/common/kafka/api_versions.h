// ApiVersions (api key 18), v0-3, flexible from v3: the first request on a
// Kafka connection; the broker answers with the versions it serves of every
// api key (kApis). Two rules beyond the layout (kafka/header.h and
// docs/kafka.md): the response header is always v0, and a request for a
// version above the served range is answered with error UNSUPPORTED_VERSION
// and the api list in the v0 body layout, so that the client can retry.
#pragma once

#include <cstdint>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct ApiVersionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kApiVersions;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  std::string_view client_software_name;     // v3+
  std::string_view client_software_version;  // v3+

  static constexpr auto fields() {
    return std::tuple{
        Field<&ApiVersionsRequest::client_software_name>{"client_software_name", since(3)},
        Field<&ApiVersionsRequest::client_software_version>{"client_software_version", since(3)},
    };
  }
};

struct ApiVersionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kApiVersions;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct ApiVersion {
    int16_t api_key = 0;
    int16_t min_version = 0;
    int16_t max_version = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&ApiVersion::api_key>{"api_key"},
          Field<&ApiVersion::min_version>{"min_version"},
          Field<&ApiVersion::max_version>{"max_version"},
      };
    }
  };
  struct SupportedFeatureKey {
    std::string_view name;
    int16_t min_version = 0;
    int16_t max_version = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&SupportedFeatureKey::name>{"name"},
          Field<&SupportedFeatureKey::min_version>{"min_version"},
          Field<&SupportedFeatureKey::max_version>{"max_version"},
      };
    }
  };
  struct FinalizedFeatureKey {
    std::string_view name;
    int16_t max_version_level = 0;
    int16_t min_version_level = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&FinalizedFeatureKey::name>{"name"},
          Field<&FinalizedFeatureKey::max_version_level>{"max_version_level"},
          Field<&FinalizedFeatureKey::min_version_level>{"min_version_level"},
      };
    }
  };

  int16_t error_code = 0;
  Array<ApiVersion> api_keys;
  int32_t throttle_time_ms = 0;  // v1+
  // Tagged, v3+.
  Array<SupportedFeatureKey> supported_features;  // tag 0
  int64_t finalized_features_epoch = -1;          // tag 1
  Array<FinalizedFeatureKey> finalized_features;  // tag 2
  bool zk_migration_ready = false;                // tag 3

  static constexpr auto fields() {
    return std::tuple{
        Field<&ApiVersionsResponse::error_code>{"error_code"},
        Field<&ApiVersionsResponse::api_keys>{"api_keys"},
        Field<&ApiVersionsResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&ApiVersionsResponse::supported_features>{
            .name = "supported_features", .versions = since(3), .tag = 0},
        Field<&ApiVersionsResponse::finalized_features_epoch>{
            .name = "finalized_features_epoch", .versions = since(3), .tag = 1},
        Field<&ApiVersionsResponse::finalized_features>{
            .name = "finalized_features", .versions = since(3), .tag = 2},
        Field<&ApiVersionsResponse::zk_migration_ready>{
            .name = "zk_migration_ready", .versions = since(3), .tag = 3},
    };
  }
};

}  // namespace spillway::kafka
