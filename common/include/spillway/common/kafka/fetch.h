// Fetch (api key 1), v4-12, flexible from v12: record batches from
// partitions of topics, from a fetch offset on. v4 is the first version with
// RecordBatch v2, the isolation level and the last stable offset; from v13
// topics are named by id instead of by name, which Spillway does not serve.
// Fetch sessions (KIP-227, v7+) are described; a broker that keeps none
// answers session_id 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct FetchRequest {
  static constexpr ApiKey kApiKey = ApiKey::kFetch;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Partition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v9+
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;  // v12+
    int64_t log_start_offset = -1;    // v5+ (followers only)
    int32_t partition_max_bytes = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::partition>{"partition"},
          Field<&Partition::current_leader_epoch>{"current_leader_epoch", since(9)},
          Field<&Partition::fetch_offset>{"fetch_offset"},
          Field<&Partition::last_fetched_epoch>{"last_fetched_epoch", since(12)},
          Field<&Partition::log_start_offset>{"log_start_offset", since(5)},
          Field<&Partition::partition_max_bytes>{"partition_max_bytes"},
      };
    }
  };
  struct Topic {
    std::string_view topic;  // v0-12
    Array<Partition> partitions;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::topic>{"topic", between(0, 12)},
          Field<&Topic::partitions>{"partitions"},
      };
    }
  };
  // Partitions to drop from the fetch session (v7+).
  struct ForgottenTopic {
    std::string_view topic;  // v7-12
    Array<int32_t> partitions;

    static constexpr auto fields() {
      return std::tuple{
          Field<&ForgottenTopic::topic>{"topic", between(7, 12)},
          Field<&ForgottenTopic::partitions>{"partitions", since(7)},
      };
    }
  };

  int32_t replica_id = -1;  // -1 for a consumer
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = INT32_MAX;  // v3+
  int8_t isolation_level = 0;     // v4+: 0 read uncommitted, 1 read committed
  int32_t session_id = 0;         // v7+
  int32_t session_epoch = -1;     // v7+
  Array<Topic> topics;
  Array<ForgottenTopic> forgotten_topics_data;  // v7+
  std::string_view rack_id;                     // v11+
  // Tagged, v12+.
  std::optional<std::string_view> cluster_id;  // tag 0, nullable

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchRequest::replica_id>{"replica_id", between(0, 14)},
        Field<&FetchRequest::max_wait_ms>{"max_wait_ms"},
        Field<&FetchRequest::min_bytes>{"min_bytes"},
        Field<&FetchRequest::max_bytes>{"max_bytes", since(3)},
        Field<&FetchRequest::isolation_level>{"isolation_level", since(4)},
        Field<&FetchRequest::session_id>{"session_id", since(7)},
        Field<&FetchRequest::session_epoch>{"session_epoch", since(7)},
        Field<&FetchRequest::topics>{"topics"},
        Field<&FetchRequest::forgotten_topics_data>{"forgotten_topics_data", since(7)},
        Field<&FetchRequest::rack_id>{"rack_id", since(11)},
        Field<&FetchRequest::cluster_id>{
            .name = "cluster_id", .versions = since(12), .nullable = since(12), .tag = 0},
    };
  }
};

struct FetchResponse {
  static constexpr ApiKey kApiKey = ApiKey::kFetch;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;

    static constexpr auto fields() {
      return std::tuple{
          Field<&AbortedTransaction::producer_id>{"producer_id"},
          Field<&AbortedTransaction::first_offset>{"first_offset"},
      };
    }
  };
  // Where a follower's log diverges from the leader's (tagged, v12+).
  struct EpochEndOffset {
    int32_t epoch = -1;
    int64_t end_offset = -1;

    friend bool operator==(const EpochEndOffset&, const EpochEndOffset&) = default;
    static constexpr auto fields() {
      return std::tuple{
          Field<&EpochEndOffset::epoch>{"epoch"},
          Field<&EpochEndOffset::end_offset>{"end_offset"},
      };
    }
  };
  // The partition's leader, when the fetch went to the wrong broker (tagged,
  // v12+).
  struct LeaderIdAndEpoch {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;

    friend bool operator==(const LeaderIdAndEpoch&, const LeaderIdAndEpoch&) = default;
    static constexpr auto fields() {
      return std::tuple{
          Field<&LeaderIdAndEpoch::leader_id>{"leader_id"},
          Field<&LeaderIdAndEpoch::leader_epoch>{"leader_epoch"},
      };
    }
  };
  // A snapshot to fetch instead (KRaft followers; tagged, v12+).
  struct SnapshotId {
    int64_t end_offset = -1;
    int32_t epoch = -1;

    friend bool operator==(const SnapshotId&, const SnapshotId&) = default;
    static constexpr auto fields() {
      return std::tuple{
          Field<&SnapshotId::end_offset>{"end_offset"},
          Field<&SnapshotId::epoch>{"epoch"},
      };
    }
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t high_watermark = 0;
    int64_t last_stable_offset = -1;                 // v4+
    int64_t log_start_offset = -1;                   // v5+
    Array<AbortedTransaction> aborted_transactions;  // v4+, nullable
    int32_t preferred_read_replica = -1;             // v11+
    Records records;                                 // nullable
    // Tagged, v12+.
    EpochEndOffset diverging_epoch;   // tag 0
    LeaderIdAndEpoch current_leader;  // tag 1
    SnapshotId snapshot_id;           // tag 2

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::partition_index>{"partition_index"},
          Field<&Partition::error_code>{"error_code"},
          Field<&Partition::high_watermark>{"high_watermark"},
          Field<&Partition::last_stable_offset>{"last_stable_offset", since(4)},
          Field<&Partition::log_start_offset>{"log_start_offset", since(5)},
          Field<&Partition::aborted_transactions>{"aborted_transactions", since(4), since(4)},
          Field<&Partition::preferred_read_replica>{"preferred_read_replica", since(11)},
          Field<&Partition::records>{"records", kAllVersions, kAllVersions},
          Field<&Partition::diverging_epoch>{
              .name = "diverging_epoch", .versions = since(12), .tag = 0},
          Field<&Partition::current_leader>{
              .name = "current_leader", .versions = since(12), .tag = 1},
          Field<&Partition::snapshot_id>{.name = "snapshot_id", .versions = since(12), .tag = 2},
      };
    }
  };
  struct Topic {
    std::string_view topic;  // v0-12
    Array<Partition> partitions;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::topic>{"topic", between(0, 12)},
          Field<&Topic::partitions>{"partitions"},
      };
    }
  };

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;        // v7+: the fetch session's error
  int32_t session_id = 0;        // v7+
  Array<Topic> responses;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
        Field<&FetchResponse::error_code>{"error_code", since(7)},
        Field<&FetchResponse::session_id>{"session_id", since(7)},
        Field<&FetchResponse::responses>{"responses"},
    };
  }
};

}  // namespace spillway::kafka
