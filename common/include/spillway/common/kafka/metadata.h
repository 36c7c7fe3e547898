// Metadata (api key 3), v0-12, flexible from v9: the brokers, the cluster's
// id and controller, and the partitions and leaders of the topics asked for
// (a null topic list, v1+, asks for every topic; v0 asks for every topic
// with an empty list).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct MetadataRequest {
  static constexpr ApiKey kApiKey = ApiKey::kMetadata;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Topic {
    Uuid topic_id;                         // v10+
    std::optional<std::string_view> name;  // nullable v10+ (then topic_id names it)

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::topic_id>{"topic_id", since(10)},
          Field<&Topic::name>{"name", kAllVersions, since(10)},
      };
    }
  };

  Array<Topic> topics;                                 // nullable v1+: all topics
  bool allow_auto_topic_creation = true;               // v4+
  bool include_cluster_authorized_operations = false;  // v8-10
  bool include_topic_authorized_operations = false;    // v8+

  static constexpr auto fields() {
    return std::tuple{
        Field<&MetadataRequest::topics>{"topics", kAllVersions, since(1)},
        Field<&MetadataRequest::allow_auto_topic_creation>{"allow_auto_topic_creation", since(4)},
        Field<&MetadataRequest::include_cluster_authorized_operations>{
            "include_cluster_authorized_operations", between(8, 10)},
        Field<&MetadataRequest::include_topic_authorized_operations>{
            "include_topic_authorized_operations", since(8)},
    };
  }
};

struct MetadataResponse {
  static constexpr ApiKey kApiKey = ApiKey::kMetadata;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Broker {
    int32_t node_id = 0;
    std::string_view host;
    int32_t port = 0;
    std::optional<std::string_view> rack;  // v1+, nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Broker::node_id>{"node_id"},
          Field<&Broker::host>{"host"},
          Field<&Broker::port>{"port"},
          Field<&Broker::rack>{"rack", since(1), since(1)},
      };
    }
  };
  struct Partition {
    int16_t error_code = 0;
    int32_t partition_index = 0;
    int32_t leader_id = 0;
    int32_t leader_epoch = -1;  // v7+
    Array<int32_t> replica_nodes;
    Array<int32_t> isr_nodes;
    Array<int32_t> offline_replicas;  // v5+

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::error_code>{"error_code"},
          Field<&Partition::partition_index>{"partition_index"},
          Field<&Partition::leader_id>{"leader_id"},
          Field<&Partition::leader_epoch>{"leader_epoch", since(7)},
          Field<&Partition::replica_nodes>{"replica_nodes"},
          Field<&Partition::isr_nodes>{"isr_nodes"},
          Field<&Partition::offline_replicas>{"offline_replicas", since(5)},
      };
    }
  };
  struct Topic {
    int16_t error_code = 0;
    std::optional<std::string_view> name;  // nullable v12+
    Uuid topic_id;                         // v10+
    bool is_internal = false;              // v1+
    Array<Partition> partitions;
    int32_t topic_authorized_operations = INT32_MIN;  // v8+

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::error_code>{"error_code"},
          Field<&Topic::name>{"name", kAllVersions, since(12)},
          Field<&Topic::topic_id>{"topic_id", since(10)},
          Field<&Topic::is_internal>{"is_internal", since(1)},
          Field<&Topic::partitions>{"partitions"},
          Field<&Topic::topic_authorized_operations>{"topic_authorized_operations", since(8)},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v3+
  Array<Broker> brokers;
  std::optional<std::string_view> cluster_id;  // v2+, nullable
  int32_t controller_id = -1;                  // v1+
  Array<Topic> topics;
  int32_t cluster_authorized_operations = INT32_MIN;  // v8-10

  static constexpr auto fields() {
    return std::tuple{
        Field<&MetadataResponse::throttle_time_ms>{"throttle_time_ms", since(3)},
        Field<&MetadataResponse::brokers>{"brokers"},
        Field<&MetadataResponse::cluster_id>{"cluster_id", since(2), since(2)},
        Field<&MetadataResponse::controller_id>{"controller_id", since(1)},
        Field<&MetadataResponse::topics>{"topics"},
        Field<&MetadataResponse::cluster_authorized_operations>{"cluster_authorized_operations",
                                                                between(8, 10)},
    };
  }
};

}  // namespace spillway::kafka
