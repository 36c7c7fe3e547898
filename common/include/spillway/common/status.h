// The one error type of Spillway: expected failures are values, never
// exceptions (docs/architecture.md, "Errors").
//
// `Status` is one pointer wide; OK is a null pointer so the success path costs
// a compare. An error carries a code (the same numbers go on the wire, see
// docs/protocol.md) and a message the user can read. Building an error
// allocates its message; that happens only on failure paths.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace spillway {

// Wire-stable error codes. Never renumber; append only.
enum class ErrorCode : int16_t {
  kOk = 0,
  kUnknown = 1,             // an unexpected failure; the message says more
  kCorruptMessage = 2,      // a batch or frame failed validation (CRC, bounds)
  kInvalidArgument = 3,     // a well-formed request that asks for the impossible
  kUnsupportedVersion = 4,  // api key or version the peer does not serve
  kFrameTooLarge = 5,       // a frame longer than the configured maximum
  kUnknownTopic = 6,        // topic does not exist
  kUnknownPartition = 7,    // partition index out of range
  kOffsetOutOfRange = 8,    // fetch offset outside [log start, high watermark]
  kBatchTooLarge = 9,       // a batch above the configured maximum
  kTopicExists = 10,        // create of an existing topic
  kNotEnoughSpace = 11,     // ENOSPC: the disk is full
  kIoError = 12,            // EIO or another storage failure
  kReadOnly = 13,           // a partition turned read-only after a failed fsync
  kResourceExhausted = 14,  // a pool, queue or connection limit was hit
  kTimeout = 15,            // a request did not finish in time
  kNotConnected = 16,       // no connection to the broker
  kShuttingDown = 17,       // the broker or client is closing
  kTooManyRequests = 18,    // in-flight request limit per connection reached
  kConfig = 19,             // a configuration file or flag is invalid
  // An idempotent producer's batch skips or repeats sequence numbers.
  kOutOfOrderSequence = 20,
  // A batch from a producer epoch that a newer one fenced.
  kInvalidProducerEpoch = 21,
  // Consumer groups (broker/groups/group_coordinator.h).
  kUnknownMember = 22,              // a member id the group does not have
  kIllegalGeneration = 23,          // a generation other than the group's current one
  kRebalanceInProgress = 24,        // the group is rebalancing: rejoin
  kMemberIdRequired = 25,           // a first join: rejoin with the member id given
  kFencedInstanceId = 26,           // a static instance id now held by a newer member
  kInconsistentGroupProtocol = 27,  // protocol type or assignors shared with no member
  kGroupNotEmpty = 28,              // delete or offset reset of a group with members
  kUnknownGroup = 29,               // a group the broker has neither members nor offsets for
  kInvalidSessionTimeout = 30,      // outside the broker's session timeout bounds
  kGroupFull = 31,                  // the group's member limit is reached
  // Security (broker/security/; docs/security.md).
  kAuthenticationFailed = 32,        // wrong credentials, unknown user, or not authenticated yet
  kUnsupportedSaslMechanism = 33,    // a SASL mechanism the listener does not enable
  kIllegalSaslState = 34,            // a SASL request out of order (or a second authentication)
  kTopicAuthorizationFailed = 35,    // the principal may not do this to the topic
  kGroupAuthorizationFailed = 36,    // ... to the group
  kClusterAuthorizationFailed = 37,  // ... to the cluster (create topics, ACLs, users)
  kSecurityDisabled = 38,            // an ACL or user call while authorization/SASL is off
  // Replication (docs/replication.md).
  kNotLeaderOrFollower = 39,  // this broker does not lead (or follow) the partition: refresh metadata
  kFencedLeaderEpoch = 40,    // the request's leader epoch is older than the partition's
  kUnknownLeaderEpoch = 41,   // the request's leader epoch is newer than this broker knows
  kNotEnoughReplicas = 42,    // acks=all refused before the append: ISR below min_insync_replicas
  kNotEnoughReplicasAfterAppend = 43,  // appended, but the ISR did not cover it in time
  kStaleBrokerEpoch = 44,              // a replica request from an older registration of a broker
  kCoordinationUnavailable = 45,       // etcd cannot be reached, or answered an error
  kCompacted = 46,                     // an etcd watch asked for a compacted revision
  // Partition reassignment (docs/operations.md).
  kInvalidReplicaAssignment = 47,  // replicas that are not distinct live brokers of the cluster
  kNoReassignmentInProgress = 48,  // a cancel of a partition that is not being moved
  // Idempotence: a producer id the partition has no state for, at a
  // sequence other than 0 (its earlier batches are not in the log).
  kUnknownProducerId = 49,
};

// Human-readable name of a code ("corrupt_message"); never null.
const char* error_code_name(ErrorCode code) noexcept;

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(ErrorCode code, std::string message);

  Status(const Status& other) : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() noexcept { return Status(); }

  bool ok() const noexcept { return rep_ == nullptr; }
  ErrorCode code() const noexcept { return rep_ ? rep_->code : ErrorCode::kOk; }
  // The message without the code; empty when ok().
  std::string_view message() const noexcept {
    return rep_ ? std::string_view(rep_->message) : std::string_view();
  }
  // "code_name: message", or "ok".
  std::string to_string() const;

 private:
  struct Rep {
    ErrorCode code;
    std::string message;
  };
  std::unique_ptr<Rep> rep_;
};

// A value or the Status that explains why there is none. The Status held is
// never ok().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  // Precondition: ok().
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Ok() when a value is held.
  Status status() const { return ok() ? Status() : std::get<1>(v_); }
  // Precondition: !ok().
  Status&& take_status() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace spillway

// Returns early from the enclosing function when `expr` is an error Status.
#define SPILLWAY_RETURN_IF_ERROR(expr) \
  do {                                 \
    ::spillway::Status _st = (expr);   \
    if (!_st.ok()) return _st;         \
  } while (0)
