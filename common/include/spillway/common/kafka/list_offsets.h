// ListOffsets (api key 2), v1-7, flexible from v6: the offset of a
// partition at a timestamp, or its earliest (-2) or latest (-1) offset, or
// (v7+, KIP-734) the offset of its largest timestamp (-3). v0 (several
// old-style offsets per partition) is not served, nor v8+ (tiered storage
// offsets, a timeout).
#pragma once

#include <cstdint>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

// Special timestamps of ListOffsetsRequest::Partition::timestamp.
inline constexpr int64_t kListOffsetsLatest = -1;
inline constexpr int64_t kListOffsetsEarliest = -2;
inline constexpr int64_t kListOffsetsMaxTimestamp = -3;  // v7+

struct ListOffsetsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kListOffsets;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Partition {
    int32_t partition_index = 0;
    int32_t current_leader_epoch = -1;  // v4+
    int64_t timestamp = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::partition_index>{"partition_index"},
          Field<&Partition::current_leader_epoch>{"current_leader_epoch", since(4)},
          Field<&Partition::timestamp>{"timestamp"},
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

  int32_t replica_id = -1;     // -1 for a consumer
  int8_t isolation_level = 0;  // v2+
  Array<Topic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ListOffsetsRequest::replica_id>{"replica_id"},
        Field<&ListOffsetsRequest::isolation_level>{"isolation_level", since(2)},
        Field<&ListOffsetsRequest::topics>{"topics"},
    };
  }
};

struct ListOffsetsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kListOffsets;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t timestamp = -1;     // v1+
    int64_t offset = -1;        // v1+
    int32_t leader_epoch = -1;  // v4+

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::partition_index>{"partition_index"},
          Field<&Partition::error_code>{"error_code"},
          Field<&Partition::timestamp>{"timestamp", since(1)},
          Field<&Partition::offset>{"offset", since(1)},
          Field<&Partition::leader_epoch>{"leader_epoch", since(4)},
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

  int32_t throttle_time_ms = 0;  // v2+
  Array<Topic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ListOffsetsResponse::throttle_time_ms>{"throttle_time_ms", since(2)},
        Field<&ListOffsetsResponse::topics>{"topics"},
    };
  }
};

}  // namespace spillway::kafka
