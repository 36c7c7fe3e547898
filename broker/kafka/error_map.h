// Spillway's error codes as Kafka's (docs/kafka.md, "Errors"): the one
// table every Kafka handler answers through, so a condition is reported with
// the same Kafka code whichever request meets it.
#pragma once

#include <cstdint>

#include "spillway/common/status.h"

namespace spillway::broker::kafka_listener {

// The Kafka error code a client should see for `code`.
int16_t kafka_error(ErrorCode code) noexcept;
inline int16_t kafka_error(const Status& status) noexcept {
  return kafka_error(status.code());
}

// The Kafka error code for a failed read of a partition's log (Fetch,
// ListOffsets): kCorruptMessage there means the stored data is damaged,
// which Kafka reports as KAFKA_STORAGE_ERROR, not as a bad message.
int16_t kafka_read_error(ErrorCode code) noexcept;

// The Kafka error code for a group api's answer (JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup, OffsetCommit's group check): as kafka_error(),
// except that a stopping broker is NOT_COORDINATOR, on which clients look
// the coordinator up again and rejoin.
int16_t kafka_group_error(const Status& status) noexcept;

// Refusals that only Kafka's requests can meet, or that Kafka tells apart
// where Spillway has one ErrorCode (a CreateTopics kInvalidArgument may be
// the name, the partition count or a setting).
enum class KafkaRefusal {
  kInvalidTopicName,
  kInvalidPartitionCount,
  kInvalidReplicationFactor,  // more than one replica on a single node
  kInvalidReplicaAssignment,  // replicas on brokers other than this one
  kInvalidConfig,             // a config name or value the topic cannot take
  kDuplicateInRequest,        // a topic or resource named twice in one request
  kUnknownTopicId,            // Spillway has no topic ids
  kUnknownGeneration,         // a commit from a group generation that does not exist
  kInvalidGroupName,          // a group id the offset store cannot hold
  kUnknownGroup,              // a group without committed offsets
  kUnknownLeaderEpoch,        // a leader epoch newer than this broker's (always 0)
  kUnsupportedResource,       // a DescribeConfigs resource type not served
};
int16_t kafka_error(KafkaRefusal refusal) noexcept;

}  // namespace spillway::broker::kafka_listener
