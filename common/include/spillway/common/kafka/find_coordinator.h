// FindCoordinator (api key 10), v0-4, flexible from v3: which broker
// coordinates a consumer group (key type 0) or a transactional id (1). v0
// has no key type; v4 batches keys (coordinator_keys in, coordinators out).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

inline constexpr int8_t kCoordinatorKeyGroup = 0;
inline constexpr int8_t kCoordinatorKeyTransaction = 1;

struct FindCoordinatorRequest {
  static constexpr ApiKey kApiKey = ApiKey::kFindCoordinator;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  std::string_view key;                      // v0-3
  int8_t key_type = kCoordinatorKeyGroup;    // v1+
  Array<std::string_view> coordinator_keys;  // v4+

  static constexpr auto fields() {
    return std::tuple{
        Field<&FindCoordinatorRequest::key>{"key", between(0, 3)},
        Field<&FindCoordinatorRequest::key_type>{"key_type", since(1)},
        Field<&FindCoordinatorRequest::coordinator_keys>{"coordinator_keys", since(4)},
    };
  }
};

struct FindCoordinatorResponse {
  static constexpr ApiKey kApiKey = ApiKey::kFindCoordinator;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Coordinator {
    std::string_view key;
    int32_t node_id = 0;
    std::string_view host;
    int32_t port = 0;
    int16_t error_code = 0;
    std::optional<std::string_view> error_message;  // nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Coordinator::key>{"key"},
          Field<&Coordinator::node_id>{"node_id"},
          Field<&Coordinator::host>{"host"},
          Field<&Coordinator::port>{"port"},
          Field<&Coordinator::error_code>{"error_code"},
          Field<&Coordinator::error_message>{"error_message", kAllVersions, kAllVersions},
      };
    }
  };

  int32_t throttle_time_ms = 0;                   // v1+
  int16_t error_code = 0;                         // v0-3
  std::optional<std::string_view> error_message;  // v1-3, nullable
  int32_t node_id = 0;                            // v0-3
  std::string_view host;                          // v0-3
  int32_t port = 0;                               // v0-3
  Array<Coordinator> coordinators;                // v4+

  static constexpr auto fields() {
    return std::tuple{
        Field<&FindCoordinatorResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&FindCoordinatorResponse::error_code>{"error_code", between(0, 3)},
        Field<&FindCoordinatorResponse::error_message>{"error_message", between(1, 3),
                                                       between(1, 3)},
        Field<&FindCoordinatorResponse::node_id>{"node_id", between(0, 3)},
        Field<&FindCoordinatorResponse::host>{"host", between(0, 3)},
        Field<&FindCoordinatorResponse::port>{"port", between(0, 3)},
        Field<&FindCoordinatorResponse::coordinators>{"coordinators", since(4)},
    };
  }
};

}  // namespace spillway::kafka
