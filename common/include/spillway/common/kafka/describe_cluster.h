// DescribeCluster (api key 60), v0-1, flexible in every version: the
// cluster id, controller and brokers (what admin clients ask instead of
// Metadata). v1 adds the endpoint type (1: brokers, 2: controllers).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct DescribeClusterRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeCluster;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  bool include_cluster_authorized_operations = false;
  int8_t endpoint_type = 1;  // v1+

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribeClusterRequest::include_cluster_authorized_operations>{
            "include_cluster_authorized_operations"},
        Field<&DescribeClusterRequest::endpoint_type>{"endpoint_type", since(1)},
    };
  }
};

struct DescribeClusterResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeCluster;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Broker {
    int32_t broker_id = 0;
    std::string_view host;
    int32_t port = 0;
    std::optional<std::string_view> rack;  // nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Broker::broker_id>{"broker_id"},
          Field<&Broker::host>{"host"},
          Field<&Broker::port>{"port"},
          Field<&Broker::rack>{"rack", kAllVersions, kAllVersions},
      };
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string_view> error_message;  // nullable
  int8_t endpoint_type = 1;                       // v1+
  std::string_view cluster_id;
  int32_t controller_id = -1;
  Array<Broker> brokers;
  int32_t cluster_authorized_operations = INT32_MIN;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribeClusterResponse::throttle_time_ms>{"throttle_time_ms"},
        Field<&DescribeClusterResponse::error_code>{"error_code"},
        Field<&DescribeClusterResponse::error_message>{"error_message", kAllVersions, kAllVersions},
        Field<&DescribeClusterResponse::endpoint_type>{"endpoint_type", since(1)},
        Field<&DescribeClusterResponse::cluster_id>{"cluster_id"},
        Field<&DescribeClusterResponse::controller_id>{"controller_id"},
        Field<&DescribeClusterResponse::brokers>{"brokers"},
        Field<&DescribeClusterResponse::cluster_authorized_operations>{
            "cluster_authorized_operations"},
    };
  }
};

}  // namespace spillway::kafka
