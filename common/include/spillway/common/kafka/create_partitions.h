// CreatePartitions (api key 37), v0-3, flexible from v2: raise topics'
// partition counts (optionally with replica assignments for the new ones).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct CreatePartitionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kCreatePartitions;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Assignment {
    Array<int32_t> broker_ids;

    static constexpr auto fields() {
      return std::tuple{Field<&Assignment::broker_ids>{"broker_ids"}};
    }
  };
  struct Topic {
    std::string_view name;
    int32_t count = 0;              // the new total partition count
    Array<Assignment> assignments;  // nullable: the broker assigns

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::name>{"name"},
          Field<&Topic::count>{"count"},
          Field<&Topic::assignments>{"assignments", kAllVersions, kAllVersions},
      };
    }
  };

  Array<Topic> topics;
  int32_t timeout_ms = 0;
  bool validate_only = false;

  static constexpr auto fields() {
    return std::tuple{
        Field<&CreatePartitionsRequest::topics>{"topics"},
        Field<&CreatePartitionsRequest::timeout_ms>{"timeout_ms"},
        Field<&CreatePartitionsRequest::validate_only>{"validate_only"},
    };
  }
};

struct CreatePartitionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kCreatePartitions;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct TopicResult {
    std::string_view name;
    int16_t error_code = 0;
    std::optional<std::string_view> error_message;  // nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&TopicResult::name>{"name"},
          Field<&TopicResult::error_code>{"error_code"},
          Field<&TopicResult::error_message>{"error_message", kAllVersions, kAllVersions},
      };
    }
  };

  int32_t throttle_time_ms = 0;
  Array<TopicResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&CreatePartitionsResponse::throttle_time_ms>{"throttle_time_ms"},
        Field<&CreatePartitionsResponse::results>{"results"},
    };
  }
};

}  // namespace spillway::kafka
