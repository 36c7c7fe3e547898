// OffsetForLeaderEpoch (api key 23), v0-4, flexible from v4: for each
// partition, the end offset of a leader epoch (the first offset of the next
// epoch, or the log end offset for the current one). Consumers use it to
// detect log truncation after a leader change.
#pragma once

#include <cstdint>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct OffsetForLeaderEpochRequest {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetForLeaderEpoch;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Partition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v2+
    int32_t leader_epoch = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::partition>{"partition"},
          Field<&Partition::current_leader_epoch>{"current_leader_epoch", since(2)},
          Field<&Partition::leader_epoch>{"leader_epoch"},
      };
    }
  };
  struct Topic {
    std::string_view topic;
    Array<Partition> partitions;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::topic>{"topic"},
          Field<&Topic::partitions>{"partitions"},
      };
    }
  };

  int32_t replica_id = -2;  // v3+: a follower's broker id, -1 for a consumer (-2: "debug")
  Array<Topic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&OffsetForLeaderEpochRequest::replica_id>{"replica_id", since(3)},
        Field<&OffsetForLeaderEpochRequest::topics>{"topics"},
    };
  }
};

struct OffsetForLeaderEpochResponse {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetForLeaderEpoch;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Partition {
    int16_t error_code = 0;
    int32_t partition = 0;
    int32_t leader_epoch = -1;  // v1+
    int64_t end_offset = -1;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::error_code>{"error_code"},
          Field<&Partition::partition>{"partition"},
          Field<&Partition::leader_epoch>{"leader_epoch", since(1)},
          Field<&Partition::end_offset>{"end_offset"},
      };
    }
  };
  struct Topic {
    std::string_view topic;
    Array<Partition> partitions;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::topic>{"topic"},
          Field<&Topic::partitions>{"partitions"},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v2+
  Array<Topic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&OffsetForLeaderEpochResponse::throttle_time_ms>{"throttle_time_ms", since(2)},
        Field<&OffsetForLeaderEpochResponse::topics>{"topics"},
    };
  }
};

}  // namespace spillway::kafka
