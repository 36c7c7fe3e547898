// OffsetFetch (api key 9), v1-8, flexible from v6: a consumer group's
// committed offsets. A null topic list (v2+) asks for every partition the
// group has committed. v8 batches groups: the request's group_id and
// topics, and the response's topics and error_code, move into one entry per
// group. v9+ (KIP-848 member epochs) is not served.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct OffsetFetchRequest {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetFetch;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  // The same shape before v8 and inside a v8 group.
  struct Topic {
    std::string_view name;
    Array<int32_t> partition_indexes;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::name>{"name"},
          Field<&Topic::partition_indexes>{"partition_indexes"},
      };
    }
  };
  struct Group {
    std::string_view group_id;
    Array<Topic> topics;  // nullable: all committed partitions

    static constexpr auto fields() {
      return std::tuple{
          Field<&Group::group_id>{"group_id"},
          Field<&Group::topics>{"topics", kAllVersions, kAllVersions},
      };
    }
  };

  std::string_view group_id;    // v0-7
  Array<Topic> topics;          // v0-7, nullable v2-7
  Array<Group> groups;          // v8+
  bool require_stable = false;  // v7+

  static constexpr auto fields() {
    return std::tuple{
        Field<&OffsetFetchRequest::group_id>{"group_id", between(0, 7)},
        Field<&OffsetFetchRequest::topics>{"topics", between(0, 7), between(2, 7)},
        Field<&OffsetFetchRequest::groups>{"groups", since(8)},
        Field<&OffsetFetchRequest::require_stable>{"require_stable", since(7)},
    };
  }
};

struct OffsetFetchResponse {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetFetch;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  // The same shape before v8 and inside a v8 group (where the leader epoch
  // is always present).
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;       // v5+
    std::optional<std::string_view> metadata;  // nullable
    int16_t error_code = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::partition_index>{"partition_index"},
          Field<&Partition::committed_offset>{"committed_offset"},
          Field<&Partition::committed_leader_epoch>{"committed_leader_epoch", since(5)},
          Field<&Partition::metadata>{"metadata", kAllVersions, kAllVersions},
          Field<&Partition::error_code>{"error_code"},
      };
    }
  };
  struct Topic {
    std::string_view name;
    Array<Partition> partitions;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::name>{"name"},
          Field<&Topic::partitions>{"partitions"},
      };
    }
  };
  struct Group {
    std::string_view group_id;
    Array<Topic> topics;
    int16_t error_code = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Group::group_id>{"group_id"},
          Field<&Group::topics>{"topics"},
          Field<&Group::error_code>{"error_code"},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v3+
  Array<Topic> topics;           // v0-7
  int16_t error_code = 0;        // v2-7
  Array<Group> groups;           // v8+

  static constexpr auto fields() {
    return std::tuple{
        Field<&OffsetFetchResponse::throttle_time_ms>{"throttle_time_ms", since(3)},
        Field<&OffsetFetchResponse::topics>{"topics", between(0, 7)},
        Field<&OffsetFetchResponse::error_code>{"error_code", between(2, 7)},
        Field<&OffsetFetchResponse::groups>{"groups", since(8)},
    };
  }
};

}  // namespace spillway::kafka
