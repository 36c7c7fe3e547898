#include "spillway/common/status.h"

namespace spillway {

Status::Status(ErrorCode code, std::string message)
    : rep_(code == ErrorCode::kOk ? nullptr
                                  : std::make_unique<Rep>(Rep{code, std::move(message)})) {}

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kUnknown:
      return "unknown";
    case ErrorCode::kCorruptMessage:
      return "corrupt_message";
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kUnsupportedVersion:
      return "unsupported_version";
    case ErrorCode::kFrameTooLarge:
      return "frame_too_large";
    case ErrorCode::kUnknownTopic:
      return "unknown_topic";
    case ErrorCode::kUnknownPartition:
      return "unknown_partition";
    case ErrorCode::kOffsetOutOfRange:
      return "offset_out_of_range";
    case ErrorCode::kBatchTooLarge:
      return "batch_too_large";
    case ErrorCode::kTopicExists:
      return "topic_exists";
    case ErrorCode::kNotEnoughSpace:
      return "not_enough_space";
    case ErrorCode::kIoError:
      return "io_error";
    case ErrorCode::kReadOnly:
      return "read_only";
    case ErrorCode::kResourceExhausted:
      return "resource_exhausted";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kNotConnected:
      return "not_connected";
    case ErrorCode::kShuttingDown:
      return "shutting_down";
    case ErrorCode::kTooManyRequests:
      return "too_many_requests";
    case ErrorCode::kConfig:
      return "config";
    case ErrorCode::kOutOfOrderSequence:
      return "out_of_order_sequence";
    case ErrorCode::kInvalidProducerEpoch:
      return "invalid_producer_epoch";
    case ErrorCode::kUnknownMember:
      return "unknown_member";
    case ErrorCode::kIllegalGeneration:
      return "illegal_generation";
    case ErrorCode::kRebalanceInProgress:
      return "rebalance_in_progress";
    case ErrorCode::kMemberIdRequired:
      return "member_id_required";
    case ErrorCode::kFencedInstanceId:
      return "fenced_instance_id";
    case ErrorCode::kInconsistentGroupProtocol:
      return "inconsistent_group_protocol";
    case ErrorCode::kGroupNotEmpty:
      return "group_not_empty";
    case ErrorCode::kUnknownGroup:
      return "unknown_group";
    case ErrorCode::kInvalidSessionTimeout:
      return "invalid_session_timeout";
    case ErrorCode::kGroupFull:
      return "group_full";
    case ErrorCode::kAuthenticationFailed:
      return "authentication_failed";
    case ErrorCode::kUnsupportedSaslMechanism:
      return "unsupported_sasl_mechanism";
    case ErrorCode::kIllegalSaslState:
      return "illegal_sasl_state";
    case ErrorCode::kTopicAuthorizationFailed:
      return "topic_authorization_failed";
    case ErrorCode::kGroupAuthorizationFailed:
      return "group_authorization_failed";
    case ErrorCode::kClusterAuthorizationFailed:
      return "cluster_authorization_failed";
    case ErrorCode::kSecurityDisabled:
      return "security_disabled";
    case ErrorCode::kNotLeaderOrFollower:
      return "not_leader_or_follower";
    case ErrorCode::kFencedLeaderEpoch:
      return "fenced_leader_epoch";
    case ErrorCode::kUnknownLeaderEpoch:
      return "unknown_leader_epoch";
    case ErrorCode::kNotEnoughReplicas:
      return "not_enough_replicas";
    case ErrorCode::kNotEnoughReplicasAfterAppend:
      return "not_enough_replicas_after_append";
    case ErrorCode::kStaleBrokerEpoch:
      return "stale_broker_epoch";
    case ErrorCode::kCoordinationUnavailable:
      return "coordination_unavailable";
    case ErrorCode::kCompacted:
      return "compacted";
    case ErrorCode::kInvalidReplicaAssignment:
      return "invalid_replica_assignment";
    case ErrorCode::kNoReassignmentInProgress:
      return "no_reassignment_in_progress";
    case ErrorCode::kUnknownProducerId:
      return "unknown_producer_id";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  std::string out = error_code_name(rep_->code);
  out += ": ";
  out += rep_->message;
  return out;
}

}  // namespace spillway
