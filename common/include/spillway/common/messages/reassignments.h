// Body codecs of the partition-reassignment requests, version 0:
// AlterPartitionReassignments (native api key 29: move the replicas of
// partitions, optionally throttled, or cancel a move) and
// ListPartitionReassignments (30: the moves in progress). Layouts and
// semantics in docs/protocol.md ("AlterPartitionReassignments") and
// docs/operations.md ("Moving a partition"). Decoded structs view the
// body; encodable ones view caller data.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kAlterPartitionReassignmentsVersion = 0;
inline constexpr int16_t kListPartitionReassignmentsVersion = 0;

// Most partitions one AlterPartitionReassignments request may name, and
// most replicas a target may list (the cluster's replication factor bound).
// The broker refuses more with kInvalidArgument before it copies anything.
inline constexpr size_t kMaxReassignPartitions = 1000;
inline constexpr size_t kMaxReassignReplicas = 16;

// ---- AlterPartitionReassignments (29) ----

struct ReassignPartitionRequest {
  int32_t partition = 0;
  // The replicas asked for, preferred leader first; empty: cancel the move
  // in progress (back to the replicas it started from).
  Array<int32_t> replicas;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReassignPartitionRequest::partition>{"partition"},
        Field<&ReassignPartitionRequest::replicas>{"replicas"},
    };
  }
};

struct ReassignTopicRequest {
  std::string_view name;
  Array<ReassignPartitionRequest> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReassignTopicRequest::name>{"name"},
        Field<&ReassignTopicRequest::partitions>{"partitions"},
    };
  }
};

struct AlterPartitionReassignmentsRequest {
  // Bytes per second the leaders may send to the replicas these moves add
  // while they are not in sync (every leader's ReplicaFetch answers to them
  // share one bucket per broker); 0 = unthrottled. Stored with each move.
  int64_t throttle_bytes_per_sec = 0;
  Array<ReassignTopicRequest> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&AlterPartitionReassignmentsRequest::throttle_bytes_per_sec>{
            "throttle_bytes_per_sec"},
        Field<&AlterPartitionReassignmentsRequest::topics>{"topics"},
    };
  }
};

// Errors: kCorruptMessage naming what is malformed.
Result<AlterPartitionReassignmentsRequest> decode_alter_partition_reassignments_request(
    std::span<const std::byte> body);
Status encode_alter_partition_reassignments_request(
    const AlterPartitionReassignmentsRequest& request, WriteBuffer& out) noexcept;

struct ReassignPartitionResult {
  int32_t partition = 0;
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReassignPartitionResult::partition>{"partition"},
        Field<&ReassignPartitionResult::error_code>{"error_code"},
        Field<&ReassignPartitionResult::error_message>{"error_message"},
    };
  }
};

struct ReassignTopicResult {
  std::string_view name;
  Array<ReassignPartitionResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ReassignTopicResult::name>{"name"},
        Field<&ReassignTopicResult::results>{"results"},
    };
  }
};

struct AlterPartitionReassignmentsResponse {
  Array<ReassignTopicResult> topics;  // the request's, in its order

  static constexpr auto fields() {
    return std::tuple{Field<&AlterPartitionReassignmentsResponse::topics>{"topics"}};
  }
};

Result<AlterPartitionReassignmentsResponse> decode_alter_partition_reassignments_response(
    std::span<const std::byte> body);
Status encode_alter_partition_reassignments_response(
    const AlterPartitionReassignmentsResponse& response, WriteBuffer& out) noexcept;

// ---- ListPartitionReassignments (30) ----

struct ListReassignmentsTopicRequest {
  std::string_view name;
  Array<int32_t> partitions;  // empty: every partition of the topic

  static constexpr auto fields() {
    return std::tuple{
        Field<&ListReassignmentsTopicRequest::name>{"name"},
        Field<&ListReassignmentsTopicRequest::partitions>{"partitions"},
    };
  }
};

struct ListPartitionReassignmentsRequest {
  Array<ListReassignmentsTopicRequest> topics;  // empty: every topic

  static constexpr auto fields() {
    return std::tuple{Field<&ListPartitionReassignmentsRequest::topics>{"topics"}};
  }
};

Result<ListPartitionReassignmentsRequest> decode_list_partition_reassignments_request(
    std::span<const std::byte> body);
Status encode_list_partition_reassignments_request(const ListPartitionReassignmentsRequest& request,
                                                   WriteBuffer& out) noexcept;

// One move in progress.
struct OngoingReassignmentBody {
  int32_t partition = 0;
  Array<int32_t> replicas;  // the assignment now (old and new replicas while moving)
  Array<int32_t> target;    // what the move ends with
  Array<int32_t> adding;    // in the target, not among the replicas it started from
  Array<int32_t> removing;  // among the replicas now, not in the target
  Array<int32_t> isr;
  int32_t leader = -1;  // -1: none
  int64_t throttle_bytes_per_sec = 0;

  static constexpr auto fields() {
    return std::tuple{
        Field<&OngoingReassignmentBody::partition>{"partition"},
        Field<&OngoingReassignmentBody::replicas>{"replicas"},
        Field<&OngoingReassignmentBody::target>{"target"},
        Field<&OngoingReassignmentBody::adding>{"adding"},
        Field<&OngoingReassignmentBody::removing>{"removing"},
        Field<&OngoingReassignmentBody::isr>{"isr"},
        Field<&OngoingReassignmentBody::leader>{"leader"},
        Field<&OngoingReassignmentBody::throttle_bytes_per_sec>{"throttle_bytes_per_sec"},
    };
  }
};

struct OngoingReassignmentsTopic {
  std::string_view name;
  Array<OngoingReassignmentBody> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&OngoingReassignmentsTopic::name>{"name"},
        Field<&OngoingReassignmentsTopic::partitions>{"partitions"},
    };
  }
};

struct ListPartitionReassignmentsResponse {
  Array<OngoingReassignmentsTopic> topics;  // by name; topics with no move are left out

  static constexpr auto fields() {
    return std::tuple{Field<&ListPartitionReassignmentsResponse::topics>{"topics"}};
  }
};

Result<ListPartitionReassignmentsResponse> decode_list_partition_reassignments_response(
    std::span<const std::byte> body);
Status encode_list_partition_reassignments_response(
    const ListPartitionReassignmentsResponse& response, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
