// DeleteTopics (api key 20), v1-6, flexible from v4: delete topics by name
// (v0-5: topic_names) or by name or id (v6+: topics).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct DeleteTopicsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteTopics;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Topic {
    std::optional<std::string_view> name;  // nullable: then topic_id names it
    Uuid topic_id;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::name>{"name", kAllVersions, kAllVersions},
          Field<&Topic::topic_id>{"topic_id"},
      };
    }
  };

  Array<Topic> topics;                  // v6+
  Array<std::string_view> topic_names;  // v0-5
  int32_t timeout_ms = 0;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DeleteTopicsRequest::topics>{"topics", since(6)},
        Field<&DeleteTopicsRequest::topic_names>{"topic_names", between(0, 5)},
        Field<&DeleteTopicsRequest::timeout_ms>{"timeout_ms"},
    };
  }
};

struct DeleteTopicsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteTopics;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct TopicResult {
    std::optional<std::string_view> name;  // nullable v6+
    Uuid topic_id;                         // v6+
    int16_t error_code = 0;
    std::optional<std::string_view> error_message;  // v5+, nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&TopicResult::name>{"name", kAllVersions, since(6)},
          Field<&TopicResult::topic_id>{"topic_id", since(6)},
          Field<&TopicResult::error_code>{"error_code"},
          Field<&TopicResult::error_message>{"error_message", since(5), since(5)},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v1+
  Array<TopicResult> responses;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DeleteTopicsResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&DeleteTopicsResponse::responses>{"responses"},
    };
  }
};

}  // namespace spillway::kafka
