// Kafka's error codes: the numbers, names and retriability that Kafka
// clients act on (the protocol guide's "Error Codes" table; "retriable" is
// whether the client's exception for it is a RetriableException, i.e. the
// client retries the request by itself). Message bodies keep error codes as
// int16_t in this numbering; the constants below name them.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace spillway::kafka {

namespace errors {
inline constexpr int16_t kUnknownServerError = -1;
inline constexpr int16_t kNone = 0;
inline constexpr int16_t kOffsetOutOfRange = 1;
inline constexpr int16_t kCorruptMessage = 2;
inline constexpr int16_t kUnknownTopicOrPartition = 3;
inline constexpr int16_t kInvalidFetchSize = 4;
inline constexpr int16_t kLeaderNotAvailable = 5;
inline constexpr int16_t kNotLeaderOrFollower = 6;
inline constexpr int16_t kRequestTimedOut = 7;
inline constexpr int16_t kBrokerNotAvailable = 8;
inline constexpr int16_t kReplicaNotAvailable = 9;
inline constexpr int16_t kMessageTooLarge = 10;
inline constexpr int16_t kStaleControllerEpoch = 11;
inline constexpr int16_t kOffsetMetadataTooLarge = 12;
inline constexpr int16_t kNetworkException = 13;
inline constexpr int16_t kCoordinatorLoadInProgress = 14;
inline constexpr int16_t kCoordinatorNotAvailable = 15;
inline constexpr int16_t kNotCoordinator = 16;
inline constexpr int16_t kInvalidTopicException = 17;
inline constexpr int16_t kRecordListTooLarge = 18;
inline constexpr int16_t kNotEnoughReplicas = 19;
inline constexpr int16_t kNotEnoughReplicasAfterAppend = 20;
inline constexpr int16_t kInvalidRequiredAcks = 21;
inline constexpr int16_t kIllegalGeneration = 22;
inline constexpr int16_t kInconsistentGroupProtocol = 23;
inline constexpr int16_t kInvalidGroupId = 24;
inline constexpr int16_t kUnknownMemberId = 25;
inline constexpr int16_t kInvalidSessionTimeout = 26;
inline constexpr int16_t kRebalanceInProgress = 27;
inline constexpr int16_t kInvalidCommitOffsetSize = 28;
inline constexpr int16_t kTopicAuthorizationFailed = 29;
inline constexpr int16_t kGroupAuthorizationFailed = 30;
inline constexpr int16_t kClusterAuthorizationFailed = 31;
inline constexpr int16_t kInvalidTimestamp = 32;
inline constexpr int16_t kUnsupportedSaslMechanism = 33;
inline constexpr int16_t kIllegalSaslState = 34;
inline constexpr int16_t kUnsupportedVersion = 35;
inline constexpr int16_t kTopicAlreadyExists = 36;
inline constexpr int16_t kInvalidPartitions = 37;
inline constexpr int16_t kInvalidReplicationFactor = 38;
inline constexpr int16_t kInvalidReplicaAssignment = 39;
inline constexpr int16_t kInvalidConfig = 40;
inline constexpr int16_t kNotController = 41;
inline constexpr int16_t kInvalidRequest = 42;
inline constexpr int16_t kUnsupportedForMessageFormat = 43;
inline constexpr int16_t kPolicyViolation = 44;
inline constexpr int16_t kOutOfOrderSequenceNumber = 45;
inline constexpr int16_t kDuplicateSequenceNumber = 46;
inline constexpr int16_t kInvalidProducerEpoch = 47;
inline constexpr int16_t kInvalidTxnState = 48;
inline constexpr int16_t kInvalidProducerIdMapping = 49;
inline constexpr int16_t kInvalidTransactionTimeout = 50;
inline constexpr int16_t kConcurrentTransactions = 51;
inline constexpr int16_t kTransactionCoordinatorFenced = 52;
inline constexpr int16_t kTransactionalIdAuthorizationFailed = 53;
inline constexpr int16_t kSecurityDisabled = 54;
inline constexpr int16_t kOperationNotAttempted = 55;
inline constexpr int16_t kKafkaStorageError = 56;
inline constexpr int16_t kLogDirNotFound = 57;
inline constexpr int16_t kSaslAuthenticationFailed = 58;
inline constexpr int16_t kUnknownProducerId = 59;
inline constexpr int16_t kReassignmentInProgress = 60;
inline constexpr int16_t kDelegationTokenAuthDisabled = 61;
inline constexpr int16_t kDelegationTokenNotFound = 62;
inline constexpr int16_t kDelegationTokenOwnerMismatch = 63;
inline constexpr int16_t kDelegationTokenRequestNotAllowed = 64;
inline constexpr int16_t kDelegationTokenAuthorizationFailed = 65;
inline constexpr int16_t kDelegationTokenExpired = 66;
inline constexpr int16_t kInvalidPrincipalType = 67;
inline constexpr int16_t kNonEmptyGroup = 68;
inline constexpr int16_t kGroupIdNotFound = 69;
inline constexpr int16_t kFetchSessionIdNotFound = 70;
inline constexpr int16_t kInvalidFetchSessionEpoch = 71;
inline constexpr int16_t kListenerNotFound = 72;
inline constexpr int16_t kTopicDeletionDisabled = 73;
inline constexpr int16_t kFencedLeaderEpoch = 74;
inline constexpr int16_t kUnknownLeaderEpoch = 75;
inline constexpr int16_t kUnsupportedCompressionType = 76;
inline constexpr int16_t kStaleBrokerEpoch = 77;
inline constexpr int16_t kOffsetNotAvailable = 78;
inline constexpr int16_t kMemberIdRequired = 79;
inline constexpr int16_t kPreferredLeaderNotAvailable = 80;
inline constexpr int16_t kGroupMaxSizeReached = 81;
inline constexpr int16_t kFencedInstanceId = 82;
inline constexpr int16_t kEligibleLeadersNotAvailable = 83;
inline constexpr int16_t kElectionNotNeeded = 84;
inline constexpr int16_t kNoReassignmentInProgress = 85;
inline constexpr int16_t kGroupSubscribedToTopic = 86;
inline constexpr int16_t kInvalidRecord = 87;
inline constexpr int16_t kUnstableOffsetCommit = 88;
inline constexpr int16_t kThrottlingQuotaExceeded = 89;
inline constexpr int16_t kProducerFenced = 90;
inline constexpr int16_t kResourceNotFound = 91;
inline constexpr int16_t kDuplicateResource = 92;
inline constexpr int16_t kUnacceptableCredential = 93;
inline constexpr int16_t kInconsistentVoterSet = 94;
inline constexpr int16_t kInvalidUpdateVersion = 95;
inline constexpr int16_t kFeatureUpdateFailed = 96;
inline constexpr int16_t kPrincipalDeserializationFailure = 97;
inline constexpr int16_t kSnapshotNotFound = 98;
inline constexpr int16_t kPositionOutOfRange = 99;
inline constexpr int16_t kUnknownTopicId = 100;
inline constexpr int16_t kDuplicateBrokerRegistration = 101;
inline constexpr int16_t kBrokerIdNotRegistered = 102;
inline constexpr int16_t kInconsistentTopicId = 103;
inline constexpr int16_t kInconsistentClusterId = 104;
inline constexpr int16_t kTransactionalIdNotFound = 105;
inline constexpr int16_t kFetchSessionTopicIdError = 106;
inline constexpr int16_t kIneligibleReplica = 107;
inline constexpr int16_t kNewLeaderElected = 108;
inline constexpr int16_t kOffsetMovedToTieredStorage = 109;
inline constexpr int16_t kFencedMemberEpoch = 110;
inline constexpr int16_t kUnreleasedInstanceId = 111;
inline constexpr int16_t kUnsupportedAssignor = 112;
inline constexpr int16_t kStaleMemberEpoch = 113;
inline constexpr int16_t kMismatchedEndpointType = 114;
inline constexpr int16_t kUnsupportedEndpointType = 115;
inline constexpr int16_t kUnknownControllerId = 116;
inline constexpr int16_t kUnknownSubscriptionId = 117;
inline constexpr int16_t kTelemetryTooLarge = 118;
inline constexpr int16_t kInvalidRegistration = 119;
inline constexpr int16_t kTransactionAbortable = 120;
inline constexpr int16_t kInvalidRecordState = 121;
inline constexpr int16_t kShareSessionNotFound = 122;
inline constexpr int16_t kInvalidShareSessionEpoch = 123;
inline constexpr int16_t kFencedStateEpoch = 124;
inline constexpr int16_t kInvalidVoterKey = 125;
inline constexpr int16_t kDuplicateVoter = 126;
inline constexpr int16_t kVoterNotFound = 127;
inline constexpr int16_t kInvalidRegularExpression = 128;
}  // namespace errors

struct ErrorInfo {
  int16_t code;
  std::string_view name;  // Kafka's name, e.g. "UNKNOWN_TOPIC_OR_PARTITION"
  bool retriable;
};

// Every code Kafka defines, in increasing order.
inline constexpr std::array<ErrorInfo, 130> kErrors = {{
    {errors::kUnknownServerError, "UNKNOWN_SERVER_ERROR", false},
    {errors::kNone, "NONE", false},
    {errors::kOffsetOutOfRange, "OFFSET_OUT_OF_RANGE", false},
    {errors::kCorruptMessage, "CORRUPT_MESSAGE", true},
    {errors::kUnknownTopicOrPartition, "UNKNOWN_TOPIC_OR_PARTITION", true},
    {errors::kInvalidFetchSize, "INVALID_FETCH_SIZE", false},
    {errors::kLeaderNotAvailable, "LEADER_NOT_AVAILABLE", true},
    {errors::kNotLeaderOrFollower, "NOT_LEADER_OR_FOLLOWER", true},
    {errors::kRequestTimedOut, "REQUEST_TIMED_OUT", true},
    {errors::kBrokerNotAvailable, "BROKER_NOT_AVAILABLE", false},
    {errors::kReplicaNotAvailable, "REPLICA_NOT_AVAILABLE", true},
    {errors::kMessageTooLarge, "MESSAGE_TOO_LARGE", false},
    {errors::kStaleControllerEpoch, "STALE_CONTROLLER_EPOCH", false},
    {errors::kOffsetMetadataTooLarge, "OFFSET_METADATA_TOO_LARGE", false},
    {errors::kNetworkException, "NETWORK_EXCEPTION", true},
    {errors::kCoordinatorLoadInProgress, "COORDINATOR_LOAD_IN_PROGRESS", true},
    {errors::kCoordinatorNotAvailable, "COORDINATOR_NOT_AVAILABLE", true},
    {errors::kNotCoordinator, "NOT_COORDINATOR", true},
    {errors::kInvalidTopicException, "INVALID_TOPIC_EXCEPTION", false},
    {errors::kRecordListTooLarge, "RECORD_LIST_TOO_LARGE", false},
    {errors::kNotEnoughReplicas, "NOT_ENOUGH_REPLICAS", true},
    {errors::kNotEnoughReplicasAfterAppend, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true},
    {errors::kInvalidRequiredAcks, "INVALID_REQUIRED_ACKS", false},
    {errors::kIllegalGeneration, "ILLEGAL_GENERATION", false},
    {errors::kInconsistentGroupProtocol, "INCONSISTENT_GROUP_PROTOCOL", false},
    {errors::kInvalidGroupId, "INVALID_GROUP_ID", false},
    {errors::kUnknownMemberId, "UNKNOWN_MEMBER_ID", false},
    {errors::kInvalidSessionTimeout, "INVALID_SESSION_TIMEOUT", false},
    {errors::kRebalanceInProgress, "REBALANCE_IN_PROGRESS", false},
    {errors::kInvalidCommitOffsetSize, "INVALID_COMMIT_OFFSET_SIZE", false},
    {errors::kTopicAuthorizationFailed, "TOPIC_AUTHORIZATION_FAILED", false},
    {errors::kGroupAuthorizationFailed, "GROUP_AUTHORIZATION_FAILED", false},
    {errors::kClusterAuthorizationFailed, "CLUSTER_AUTHORIZATION_FAILED", false},
    {errors::kInvalidTimestamp, "INVALID_TIMESTAMP", false},
    {errors::kUnsupportedSaslMechanism, "UNSUPPORTED_SASL_MECHANISM", false},
    {errors::kIllegalSaslState, "ILLEGAL_SASL_STATE", false},
    {errors::kUnsupportedVersion, "UNSUPPORTED_VERSION", false},
    {errors::kTopicAlreadyExists, "TOPIC_ALREADY_EXISTS", false},
    {errors::kInvalidPartitions, "INVALID_PARTITIONS", false},
    {errors::kInvalidReplicationFactor, "INVALID_REPLICATION_FACTOR", false},
    {errors::kInvalidReplicaAssignment, "INVALID_REPLICA_ASSIGNMENT", false},
    {errors::kInvalidConfig, "INVALID_CONFIG", false},
    {errors::kNotController, "NOT_CONTROLLER", true},
    {errors::kInvalidRequest, "INVALID_REQUEST", false},
    {errors::kUnsupportedForMessageFormat, "UNSUPPORTED_FOR_MESSAGE_FORMAT", false},
    {errors::kPolicyViolation, "POLICY_VIOLATION", false},
    {errors::kOutOfOrderSequenceNumber, "OUT_OF_ORDER_SEQUENCE_NUMBER", false},
    {errors::kDuplicateSequenceNumber, "DUPLICATE_SEQUENCE_NUMBER", false},
    {errors::kInvalidProducerEpoch, "INVALID_PRODUCER_EPOCH", false},
    {errors::kInvalidTxnState, "INVALID_TXN_STATE", false},
    {errors::kInvalidProducerIdMapping, "INVALID_PRODUCER_ID_MAPPING", false},
    {errors::kInvalidTransactionTimeout, "INVALID_TRANSACTION_TIMEOUT", false},
    {errors::kConcurrentTransactions, "CONCURRENT_TRANSACTIONS", true},
    {errors::kTransactionCoordinatorFenced, "TRANSACTION_COORDINATOR_FENCED", false},
    {errors::kTransactionalIdAuthorizationFailed, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", false},
    {errors::kSecurityDisabled, "SECURITY_DISABLED", false},
    {errors::kOperationNotAttempted, "OPERATION_NOT_ATTEMPTED", false},
    {errors::kKafkaStorageError, "KAFKA_STORAGE_ERROR", true},
    {errors::kLogDirNotFound, "LOG_DIR_NOT_FOUND", false},
    {errors::kSaslAuthenticationFailed, "SASL_AUTHENTICATION_FAILED", false},
    {errors::kUnknownProducerId, "UNKNOWN_PRODUCER_ID", false},
    {errors::kReassignmentInProgress, "REASSIGNMENT_IN_PROGRESS", false},
    {errors::kDelegationTokenAuthDisabled, "DELEGATION_TOKEN_AUTH_DISABLED", false},
    {errors::kDelegationTokenNotFound, "DELEGATION_TOKEN_NOT_FOUND", false},
    {errors::kDelegationTokenOwnerMismatch, "DELEGATION_TOKEN_OWNER_MISMATCH", false},
    {errors::kDelegationTokenRequestNotAllowed, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", false},
    {errors::kDelegationTokenAuthorizationFailed, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", false},
    {errors::kDelegationTokenExpired, "DELEGATION_TOKEN_EXPIRED", false},
    {errors::kInvalidPrincipalType, "INVALID_PRINCIPAL_TYPE", false},
    {errors::kNonEmptyGroup, "NON_EMPTY_GROUP", false},
    {errors::kGroupIdNotFound, "GROUP_ID_NOT_FOUND", false},
    {errors::kFetchSessionIdNotFound, "FETCH_SESSION_ID_NOT_FOUND", true},
    {errors::kInvalidFetchSessionEpoch, "INVALID_FETCH_SESSION_EPOCH", true},
    {errors::kListenerNotFound, "LISTENER_NOT_FOUND", true},
    {errors::kTopicDeletionDisabled, "TOPIC_DELETION_DISABLED", false},
    {errors::kFencedLeaderEpoch, "FENCED_LEADER_EPOCH", true},
    {errors::kUnknownLeaderEpoch, "UNKNOWN_LEADER_EPOCH", true},
    {errors::kUnsupportedCompressionType, "UNSUPPORTED_COMPRESSION_TYPE", false},
    {errors::kStaleBrokerEpoch, "STALE_BROKER_EPOCH", false},
    {errors::kOffsetNotAvailable, "OFFSET_NOT_AVAILABLE", true},
    {errors::kMemberIdRequired, "MEMBER_ID_REQUIRED", false},
    {errors::kPreferredLeaderNotAvailable, "PREFERRED_LEADER_NOT_AVAILABLE", true},
    {errors::kGroupMaxSizeReached, "GROUP_MAX_SIZE_REACHED", false},
    {errors::kFencedInstanceId, "FENCED_INSTANCE_ID", false},
    {errors::kEligibleLeadersNotAvailable, "ELIGIBLE_LEADERS_NOT_AVAILABLE", true},
    {errors::kElectionNotNeeded, "ELECTION_NOT_NEEDED", true},
    {errors::kNoReassignmentInProgress, "NO_REASSIGNMENT_IN_PROGRESS", false},
    {errors::kGroupSubscribedToTopic, "GROUP_SUBSCRIBED_TO_TOPIC", false},
    {errors::kInvalidRecord, "INVALID_RECORD", false},
    {errors::kUnstableOffsetCommit, "UNSTABLE_OFFSET_COMMIT", true},
    {errors::kThrottlingQuotaExceeded, "THROTTLING_QUOTA_EXCEEDED", true},
    {errors::kProducerFenced, "PRODUCER_FENCED", false},
    {errors::kResourceNotFound, "RESOURCE_NOT_FOUND", false},
    {errors::kDuplicateResource, "DUPLICATE_RESOURCE", false},
    {errors::kUnacceptableCredential, "UNACCEPTABLE_CREDENTIAL", false},
    {errors::kInconsistentVoterSet, "INCONSISTENT_VOTER_SET", false},
    {errors::kInvalidUpdateVersion, "INVALID_UPDATE_VERSION", false},
    {errors::kFeatureUpdateFailed, "FEATURE_UPDATE_FAILED", false},
    {errors::kPrincipalDeserializationFailure, "PRINCIPAL_DESERIALIZATION_FAILURE", false},
    {errors::kSnapshotNotFound, "SNAPSHOT_NOT_FOUND", false},
    {errors::kPositionOutOfRange, "POSITION_OUT_OF_RANGE", false},
    {errors::kUnknownTopicId, "UNKNOWN_TOPIC_ID", true},
    {errors::kDuplicateBrokerRegistration, "DUPLICATE_BROKER_REGISTRATION", false},
    {errors::kBrokerIdNotRegistered, "BROKER_ID_NOT_REGISTERED", false},
    {errors::kInconsistentTopicId, "INCONSISTENT_TOPIC_ID", true},
    {errors::kInconsistentClusterId, "INCONSISTENT_CLUSTER_ID", false},
    {errors::kTransactionalIdNotFound, "TRANSACTIONAL_ID_NOT_FOUND", false},
    {errors::kFetchSessionTopicIdError, "FETCH_SESSION_TOPIC_ID_ERROR", true},
    {errors::kIneligibleReplica, "INELIGIBLE_REPLICA", false},
    {errors::kNewLeaderElected, "NEW_LEADER_ELECTED", false},
    {errors::kOffsetMovedToTieredStorage, "OFFSET_MOVED_TO_TIERED_STORAGE", false},
    {errors::kFencedMemberEpoch, "FENCED_MEMBER_EPOCH", false},
    {errors::kUnreleasedInstanceId, "UNRELEASED_INSTANCE_ID", false},
    {errors::kUnsupportedAssignor, "UNSUPPORTED_ASSIGNOR", false},
    {errors::kStaleMemberEpoch, "STALE_MEMBER_EPOCH", false},
    {errors::kMismatchedEndpointType, "MISMATCHED_ENDPOINT_TYPE", false},
    {errors::kUnsupportedEndpointType, "UNSUPPORTED_ENDPOINT_TYPE", false},
    {errors::kUnknownControllerId, "UNKNOWN_CONTROLLER_ID", false},
    {errors::kUnknownSubscriptionId, "UNKNOWN_SUBSCRIPTION_ID", false},
    {errors::kTelemetryTooLarge, "TELEMETRY_TOO_LARGE", false},
    {errors::kInvalidRegistration, "INVALID_REGISTRATION", false},
    {errors::kTransactionAbortable, "TRANSACTION_ABORTABLE", false},
    {errors::kInvalidRecordState, "INVALID_RECORD_STATE", false},
    {errors::kShareSessionNotFound, "SHARE_SESSION_NOT_FOUND", true},
    {errors::kInvalidShareSessionEpoch, "INVALID_SHARE_SESSION_EPOCH", true},
    {errors::kFencedStateEpoch, "FENCED_STATE_EPOCH", false},
    {errors::kInvalidVoterKey, "INVALID_VOTER_KEY", false},
    {errors::kDuplicateVoter, "DUPLICATE_VOTER", false},
    {errors::kVoterNotFound, "VOTER_NOT_FOUND", false},
    {errors::kInvalidRegularExpression, "INVALID_REGULAR_EXPRESSION", false},
}};

// The entry for `code`; nullptr for a code Kafka does not define.
constexpr const ErrorInfo* find_error(int16_t code) noexcept {
  for (const ErrorInfo& e : kErrors) {
    if (e.code == code) return &e;
  }
  return nullptr;
}

// Kafka's name of `code`, or "UNKNOWN" for a code it does not define.
constexpr std::string_view error_name(int16_t code) noexcept {
  const ErrorInfo* e = find_error(code);
  return e != nullptr ? e->name : std::string_view("UNKNOWN");
}

}  // namespace spillway::kafka
