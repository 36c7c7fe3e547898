// The ErrorCode -> Kafka error code table.
#include "error_map.h"

#include "spillway/common/kafka/error_codes.h"

namespace spillway::broker::kafka_listener {

int16_t kafka_error(ErrorCode code) noexcept {
  namespace e = kafka::errors;
  switch (code) {
    case ErrorCode::kOk:
      return e::kNone;
    case ErrorCode::kCorruptMessage:
      return e::kCorruptMessage;
    case ErrorCode::kInvalidArgument:
      return e::kInvalidRequest;
    case ErrorCode::kUnsupportedVersion:
      return e::kUnsupportedVersion;
    case ErrorCode::kFrameTooLarge:
    case ErrorCode::kBatchTooLarge:
      return e::kMessageTooLarge;
    case ErrorCode::kUnknownTopic:
    case ErrorCode::kUnknownPartition:
      return e::kUnknownTopicOrPartition;
    case ErrorCode::kOffsetOutOfRange:
      return e::kOffsetOutOfRange;
    case ErrorCode::kTopicExists:
      return e::kTopicAlreadyExists;
    case ErrorCode::kNotEnoughSpace:
    case ErrorCode::kIoError:
    case ErrorCode::kReadOnly:
      // The partition's storage failed; clients retry and refresh metadata.
      return e::kKafkaStorageError;
    case ErrorCode::kResourceExhausted:
    case ErrorCode::kTimeout:
    case ErrorCode::kTooManyRequests:
      return e::kRequestTimedOut;
    case ErrorCode::kNotConnected:
      return e::kNetworkException;
    case ErrorCode::kShuttingDown:
      // The broker is stopping: the client retries, after a metadata refresh.
      return e::kNotLeaderOrFollower;
    case ErrorCode::kConfig:
      return e::kInvalidConfig;
    case ErrorCode::kOutOfOrderSequence:
      return e::kOutOfOrderSequenceNumber;
    case ErrorCode::kInvalidProducerEpoch:
      return e::kInvalidProducerEpoch;
    case ErrorCode::kUnknownMember:
      return e::kUnknownMemberId;
    case ErrorCode::kIllegalGeneration:
      return e::kIllegalGeneration;
    case ErrorCode::kRebalanceInProgress:
      return e::kRebalanceInProgress;
    case ErrorCode::kMemberIdRequired:
      return e::kMemberIdRequired;
    case ErrorCode::kFencedInstanceId:
      return e::kFencedInstanceId;
    case ErrorCode::kInconsistentGroupProtocol:
      return e::kInconsistentGroupProtocol;
    case ErrorCode::kGroupNotEmpty:
      return e::kNonEmptyGroup;
    case ErrorCode::kUnknownGroup:
      return e::kGroupIdNotFound;
    case ErrorCode::kInvalidSessionTimeout:
      return e::kInvalidSessionTimeout;
    case ErrorCode::kGroupFull:
      return e::kGroupMaxSizeReached;
    case ErrorCode::kAuthenticationFailed:
      return e::kSaslAuthenticationFailed;
    case ErrorCode::kUnsupportedSaslMechanism:
      return e::kUnsupportedSaslMechanism;
    case ErrorCode::kIllegalSaslState:
      return e::kIllegalSaslState;
    case ErrorCode::kTopicAuthorizationFailed:
      return e::kTopicAuthorizationFailed;
    case ErrorCode::kGroupAuthorizationFailed:
      return e::kGroupAuthorizationFailed;
    case ErrorCode::kClusterAuthorizationFailed:
      return e::kClusterAuthorizationFailed;
    case ErrorCode::kSecurityDisabled:
      return e::kSecurityDisabled;
    case ErrorCode::kNotLeaderOrFollower:
      return e::kNotLeaderOrFollower;
    case ErrorCode::kFencedLeaderEpoch:
      return e::kFencedLeaderEpoch;
    case ErrorCode::kUnknownLeaderEpoch:
      return e::kUnknownLeaderEpoch;
    case ErrorCode::kNotEnoughReplicas:
      return e::kNotEnoughReplicas;
    case ErrorCode::kNotEnoughReplicasAfterAppend:
      return e::kNotEnoughReplicasAfterAppend;
    case ErrorCode::kStaleBrokerEpoch:
      return e::kStaleBrokerEpoch;
    case ErrorCode::kInvalidReplicaAssignment:
      return e::kInvalidReplicaAssignment;
    case ErrorCode::kNoReassignmentInProgress:
      return e::kNoReassignmentInProgress;
    case ErrorCode::kUnknownProducerId:
      return e::kUnknownProducerId;
    case ErrorCode::kCoordinationUnavailable:
    case ErrorCode::kCompacted:
      break;  // internal to the cluster layer: UNKNOWN_SERVER_ERROR if one ever escapes
    case ErrorCode::kUnknown:
      break;
  }
  return e::kUnknownServerError;
}

int16_t kafka_read_error(ErrorCode code) noexcept {
  if (code == ErrorCode::kCorruptMessage) return kafka::errors::kKafkaStorageError;
  return kafka_error(code);
}

int16_t kafka_error(KafkaRefusal refusal) noexcept {
  namespace e = kafka::errors;
  switch (refusal) {
    case KafkaRefusal::kInvalidTopicName:
      return e::kInvalidTopicException;
    case KafkaRefusal::kInvalidPartitionCount:
      return e::kInvalidPartitions;
    case KafkaRefusal::kInvalidReplicationFactor:
      return e::kInvalidReplicationFactor;
    case KafkaRefusal::kInvalidReplicaAssignment:
      return e::kInvalidReplicaAssignment;
    case KafkaRefusal::kInvalidConfig:
      return e::kInvalidConfig;
    case KafkaRefusal::kDuplicateInRequest:
      return e::kInvalidRequest;
    case KafkaRefusal::kUnknownTopicId:
      return e::kUnknownTopicId;
    case KafkaRefusal::kUnknownGeneration:
      return e::kIllegalGeneration;
    case KafkaRefusal::kInvalidGroupName:
      return e::kInvalidGroupId;
    case KafkaRefusal::kUnknownGroup:
      return e::kGroupIdNotFound;
    case KafkaRefusal::kUnknownLeaderEpoch:
      return e::kUnknownLeaderEpoch;
    case KafkaRefusal::kUnsupportedResource:
      return e::kInvalidRequest;
  }
  return e::kUnknownServerError;
}

int16_t kafka_group_error(const Status& status) noexcept {
  switch (status.code()) {
    case ErrorCode::kShuttingDown:
    case ErrorCode::kNotLeaderOrFollower:  // another broker holds the group's offsets now
      return kafka::errors::kNotCoordinator;
    case ErrorCode::kCoordinationUnavailable:  // etcd, or the offsets not loaded yet
      return kafka::errors::kCoordinatorNotAvailable;
    default:
      return kafka_error(status);
  }
}

}  // namespace spillway::broker::kafka_listener
