// Body codecs of the replication requests between brokers, version 0:
// ReplicaFetch (api key 26, a follower reading the leader's log),
// LeaderEpochEnd (27, the end offset of a leader epoch on the leader,
// KIP-101/279) and DescribeCluster (28, the cluster as one broker sees it).
// Layouts and semantics in docs/protocol.md ("Replication") and
// docs/replication-fetch.md. Decoded structs view the body; encodable ones
// view caller data.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kReplicaFetchVersion = 0;
inline constexpr int16_t kLeaderEpochEndVersion = 0;
inline constexpr int16_t kDescribeClusterVersion = 0;

// ---- ReplicaFetch (26) ----

struct ReplicaFetchPartitionRequest {
  int32_t partition = 0;
  int64_t fetch_offset = 0;  // the follower's log end
  // The leader epoch the follower follows (KIP-320): the leader answers
  // kFencedLeaderEpoch when it is older than its own, kUnknownLeaderEpoch
  // when newer.
  int32_t current_leader_epoch = -1;
  int32_t max_bytes = 0;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReplicaFetchPartitionRequest::partition>{"partition"},
        Field<&ReplicaFetchPartitionRequest::fetch_offset>{"fetch_offset"},
        Field<&ReplicaFetchPartitionRequest::current_leader_epoch>{"current_leader_epoch"},
        Field<&ReplicaFetchPartitionRequest::max_bytes>{"max_bytes"},
    };
  }
};

struct ReplicaFetchTopicRequest {
  std::string_view name;
  Array<ReplicaFetchPartitionRequest> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReplicaFetchTopicRequest::name>{"name"},
        Field<&ReplicaFetchTopicRequest::partitions>{"partitions"},
    };
  }
};

struct ReplicaFetchRequest {
  int32_t replica_id = -1;    // the follower's broker id
  int64_t broker_epoch = 0;   // its registration (kStaleBrokerEpoch when older)
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0;
  Array<ReplicaFetchTopicRequest> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReplicaFetchRequest::replica_id>{"replica_id"},
        Field<&ReplicaFetchRequest::broker_epoch>{"broker_epoch"},
        Field<&ReplicaFetchRequest::max_wait_ms>{"max_wait_ms"},
        Field<&ReplicaFetchRequest::min_bytes>{"min_bytes"},
        Field<&ReplicaFetchRequest::max_bytes>{"max_bytes"},
        Field<&ReplicaFetchRequest::topics>{"topics"},
    };
  }
};

// Errors: kCorruptMessage naming what is malformed.
Result<ReplicaFetchRequest> decode_replica_fetch_request(std::span<const std::byte> body);
Status encode_replica_fetch_request(const ReplicaFetchRequest& request, WriteBuffer& out) noexcept;

struct ReplicaFetchPartitionResult {
  int32_t partition = 0;
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  int32_t leader_epoch = -1;  // the leader's current epoch
  // Whole stored batches, verbatim, from the fetch offset (the first starts
  // at it unless the log has a gap there).
  Records records;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReplicaFetchPartitionResult::partition>{"partition"},
        Field<&ReplicaFetchPartitionResult::error_code>{"error_code"},
        Field<&ReplicaFetchPartitionResult::error_message>{"error_message"},
        Field<&ReplicaFetchPartitionResult::high_watermark>{"high_watermark"},
        Field<&ReplicaFetchPartitionResult::log_start_offset>{"log_start_offset"},
        Field<&ReplicaFetchPartitionResult::leader_epoch>{"leader_epoch"},
        Field<&ReplicaFetchPartitionResult::records>{"records"},
    };
  }
};

struct ReplicaFetchTopicResult {
  std::string_view name;
  Array<ReplicaFetchPartitionResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReplicaFetchTopicResult::name>{"name"},
        Field<&ReplicaFetchTopicResult::results>{"results"},
    };
  }
};

struct ReplicaFetchResponse {
  Array<ReplicaFetchTopicResult> topics;

  static constexpr auto fields() {
    return std::tuple{Field<&ReplicaFetchResponse::topics>{"topics"}};
  }
};

Result<ReplicaFetchResponse> decode_replica_fetch_response(std::span<const std::byte> body);
Status encode_replica_fetch_response(const ReplicaFetchResponse& response,
                                     WriteBuffer& out) noexcept;

// ---- LeaderEpochEnd (27) ----

struct LeaderEpochEndPartitionRequest {
  int32_t partition = 0;
  int32_t current_leader_epoch = -1;  // fencing, as in ReplicaFetch; -1: no check
  int32_t leader_epoch = 0;           // the epoch whose end offset is asked

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaderEpochEndPartitionRequest::partition>{"partition"},
        Field<&LeaderEpochEndPartitionRequest::current_leader_epoch>{"current_leader_epoch"},
        Field<&LeaderEpochEndPartitionRequest::leader_epoch>{"leader_epoch"},
    };
  }
};

struct LeaderEpochEndTopicRequest {
  std::string_view name;
  Array<LeaderEpochEndPartitionRequest> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaderEpochEndTopicRequest::name>{"name"},
        Field<&LeaderEpochEndTopicRequest::partitions>{"partitions"},
    };
  }
};

struct LeaderEpochEndRequest {
  int32_t replica_id = -1;
  Array<LeaderEpochEndTopicRequest> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaderEpochEndRequest::replica_id>{"replica_id"},
        Field<&LeaderEpochEndRequest::topics>{"topics"},
    };
  }
};

Result<LeaderEpochEndRequest> decode_leader_epoch_end_request(std::span<const std::byte> body);
Status encode_leader_epoch_end_request(const LeaderEpochEndRequest& request,
                                       WriteBuffer& out) noexcept;

struct LeaderEpochEndPartitionResult {
  int32_t partition = 0;
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;
  // The largest epoch <= the one asked, and its end offset (the start of the
  // next epoch, or the log end for the current one); -1 for both when unknown.
  int32_t leader_epoch = -1;
  int64_t end_offset = -1;

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaderEpochEndPartitionResult::partition>{"partition"},
        Field<&LeaderEpochEndPartitionResult::error_code>{"error_code"},
        Field<&LeaderEpochEndPartitionResult::error_message>{"error_message"},
        Field<&LeaderEpochEndPartitionResult::leader_epoch>{"leader_epoch"},
        Field<&LeaderEpochEndPartitionResult::end_offset>{"end_offset"},
    };
  }
};

struct LeaderEpochEndTopicResult {
  std::string_view name;
  Array<LeaderEpochEndPartitionResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaderEpochEndTopicResult::name>{"name"},
        Field<&LeaderEpochEndTopicResult::results>{"results"},
    };
  }
};

struct LeaderEpochEndResponse {
  Array<LeaderEpochEndTopicResult> topics;

  static constexpr auto fields() {
    return std::tuple{Field<&LeaderEpochEndResponse::topics>{"topics"}};
  }
};

Result<LeaderEpochEndResponse> decode_leader_epoch_end_response(std::span<const std::byte> body);
Status encode_leader_epoch_end_response(const LeaderEpochEndResponse& response,
                                        WriteBuffer& out) noexcept;

// ---- DescribeCluster (28) ----

struct DescribeClusterRequest {
  static constexpr auto fields() { return std::tuple{}; }
};

struct ClusterBrokerBody {
  int32_t id = -1;
  std::string_view native_address;  // HOST:PORT
  std::string_view kafka_address;   // HOST:PORT, "" without a Kafka listener
  std::string_view rack;
  int64_t epoch = 0;  // the broker epoch (its registration)

  static constexpr auto fields() {
    return std::tuple{
        Field<&ClusterBrokerBody::id>{"id"},
        Field<&ClusterBrokerBody::native_address>{"native_address"},
        Field<&ClusterBrokerBody::kafka_address>{"kafka_address"},
        Field<&ClusterBrokerBody::rack>{"rack"},
        Field<&ClusterBrokerBody::epoch>{"epoch"},
    };
  }
};

struct ClusterPartitionBody {
  int32_t partition = 0;
  int32_t leader = -1;  // -1: none
  int32_t leader_epoch = 0;
  Array<int32_t> replicas;  // preferred leader first
  Array<int32_t> isr;
  bool offline = false;  // no live leader

  static constexpr auto fields() {
    return std::tuple{
        Field<&ClusterPartitionBody::partition>{"partition"},
        Field<&ClusterPartitionBody::leader>{"leader"},
        Field<&ClusterPartitionBody::leader_epoch>{"leader_epoch"},
        Field<&ClusterPartitionBody::replicas>{"replicas"},
        Field<&ClusterPartitionBody::isr>{"isr"},
        Field<&ClusterPartitionBody::offline>{"offline"},
    };
  }
};

struct ClusterTopicBody {
  std::string_view name;
  Array<ClusterPartitionBody> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ClusterTopicBody::name>{"name"},
        Field<&ClusterTopicBody::partitions>{"partitions"},
    };
  }
};

struct DescribeClusterResponse {
  int32_t controller_id = -1;  // -1: no controller
  int64_t controller_epoch = 0;
  Array<ClusterBrokerBody> brokers;  // live ones, by id
  Array<ClusterTopicBody> topics;    // by name

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribeClusterResponse::controller_id>{"controller_id"},
        Field<&DescribeClusterResponse::controller_epoch>{"controller_epoch"},
        Field<&DescribeClusterResponse::brokers>{"brokers"},
        Field<&DescribeClusterResponse::topics>{"topics"},
    };
  }
};

Result<DescribeClusterRequest> decode_describe_cluster_request(std::span<const std::byte> body);
Status encode_describe_cluster_request(const DescribeClusterRequest& request,
                                       WriteBuffer& out) noexcept;
Result<DescribeClusterResponse> decode_describe_cluster_response(std::span<const std::byte> body);
Status encode_describe_cluster_response(const DescribeClusterResponse& response,
                                        WriteBuffer& out) noexcept;

}  // namespace spillway::messages
