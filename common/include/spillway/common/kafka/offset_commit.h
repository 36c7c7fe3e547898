// OffsetCommit (api key 8), v2-8, flexible from v8: a consumer group's
// committed offsets. A consumer that uses assign() commits with generation
// -1 and an empty member id. v0-1 (ZooKeeper-era commits) and v9+ (the
// KIP-848 group protocol) are not served.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct OffsetCommitRequest {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetCommit;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;                 // v6+
    std::optional<std::string_view> committed_metadata;  // nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::partition_index>{"partition_index"},
          Field<&Partition::committed_offset>{"committed_offset"},
          Field<&Partition::committed_leader_epoch>{"committed_leader_epoch", since(6)},
          Field<&Partition::committed_metadata>{"committed_metadata", kAllVersions, kAllVersions},
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

  std::string_view group_id;
  int32_t generation_id_or_member_epoch = -1;         // v1+
  std::string_view member_id;                         // v1+
  std::optional<std::string_view> group_instance_id;  // v7+, nullable
  int64_t retention_time_ms = -1;                     // v2-4
  Array<Topic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&OffsetCommitRequest::group_id>{"group_id"},
        Field<&OffsetCommitRequest::generation_id_or_member_epoch>{"generation_id_or_member_epoch",
                                                                   since(1)},
        Field<&OffsetCommitRequest::member_id>{"member_id", since(1)},
        Field<&OffsetCommitRequest::group_instance_id>{"group_instance_id", since(7), since(7)},
        Field<&OffsetCommitRequest::retention_time_ms>{"retention_time_ms", between(2, 4)},
        Field<&OffsetCommitRequest::topics>{"topics"},
    };
  }
};

struct OffsetCommitResponse {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetCommit;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::partition_index>{"partition_index"},
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

  int32_t throttle_time_ms = 0;  // v3+
  Array<Topic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&OffsetCommitResponse::throttle_time_ms>{"throttle_time_ms", since(3)},
        Field<&OffsetCommitResponse::topics>{"topics"},
    };
  }
};

}  // namespace spillway::kafka
