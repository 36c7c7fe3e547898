// CreateTopics (api key 19), v2-7, flexible from v5: create topics with a
// partition count (or explicit assignments) and topic configs; validate_only
// checks without creating. From v5 the result echoes the partition count,
// replication factor and configs the topic got; v7 adds topic ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct CreateTopicsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kCreateTopics;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Assignment {
    int32_t partition_index = 0;
    Array<int32_t> broker_ids;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Assignment::partition_index>{"partition_index"},
          Field<&Assignment::broker_ids>{"broker_ids"},
      };
    }
  };
  struct Config {
    std::string_view name;
    std::optional<std::string_view> value;  // nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Config::name>{"name"},
          Field<&Config::value>{"value", kAllVersions, kAllVersions},
      };
    }
  };
  struct Topic {
    std::string_view name;
    int32_t num_partitions = 0;      // -1: the broker's default (with no assignments)
    int16_t replication_factor = 0;  // -1: the broker's default
    Array<Assignment> assignments;
    Array<Config> configs;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::name>{"name"},
          Field<&Topic::num_partitions>{"num_partitions"},
          Field<&Topic::replication_factor>{"replication_factor"},
          Field<&Topic::assignments>{"assignments"},
          Field<&Topic::configs>{"configs"},
      };
    }
  };

  Array<Topic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false;  // v1+

  static constexpr auto fields() {
    return std::tuple{
        Field<&CreateTopicsRequest::topics>{"topics"},
        Field<&CreateTopicsRequest::timeout_ms>{"timeout_ms"},
        Field<&CreateTopicsRequest::validate_only>{"validate_only", since(1)},
    };
  }
};

struct CreateTopicsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kCreateTopics;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Config {
    std::string_view name;
    std::optional<std::string_view> value;  // nullable
    bool read_only = false;
    int8_t config_source = -1;
    bool is_sensitive = false;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Config::name>{"name"},
          Field<&Config::value>{"value", kAllVersions, kAllVersions},
          Field<&Config::read_only>{"read_only"},
          Field<&Config::config_source>{"config_source"},
          Field<&Config::is_sensitive>{"is_sensitive"},
      };
    }
  };
  struct Topic {
    std::string_view name;
    Uuid topic_id;  // v7+
    int16_t error_code = 0;
    std::optional<std::string_view> error_message;  // v1+, nullable
    int32_t num_partitions = -1;                    // v5+
    int16_t replication_factor = -1;                // v5+
    Array<Config> configs;                          // v5+, nullable
    // Tagged, v5+.
    int16_t topic_config_error_code = 0;  // tag 0

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::name>{"name"},
          Field<&Topic::topic_id>{"topic_id", since(7)},
          Field<&Topic::error_code>{"error_code"},
          Field<&Topic::error_message>{"error_message", since(1), kAllVersions},
          Field<&Topic::num_partitions>{"num_partitions", since(5)},
          Field<&Topic::replication_factor>{"replication_factor", since(5)},
          Field<&Topic::configs>{"configs", since(5), since(5)},
          Field<&Topic::topic_config_error_code>{
              .name = "topic_config_error_code", .versions = since(5), .tag = 0},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v2+
  Array<Topic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&CreateTopicsResponse::throttle_time_ms>{"throttle_time_ms", since(2)},
        Field<&CreateTopicsResponse::topics>{"topics"},
    };
  }
};

}  // namespace spillway::kafka
