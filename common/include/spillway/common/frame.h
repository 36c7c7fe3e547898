// The native frame header codec: the fixed-size, big-endian header in front of
// every request and response of Spillway's native protocol. The byte layout is
// specified in docs/protocol.md ("Frames"); this file is its only encoder.
//
//   request:  [u32 length][i16 api_key][i16 api_version][i32 correlation_id] body
//   response: [u32 length][i32 correlation_id][i16 error_code] body
//
// `length` counts every byte after itself. A response whose error_code is not 0
// carries an error body ([u16 message_length][message]) and nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::frame {

// Api keys of the native protocol. Wire-stable: never renumber. Numbers past
// kApiVersions are reserved for the requests later issues add; the broker
// answers a key it does not serve with kUnsupportedVersion.
enum class ApiKey : int16_t {
  kApiVersions = 0,
  kProduce = 1,
  kFetch = 2,
  kMetadata = 3,
  kCreateTopics = 4,
  kDeleteTopics = 5,
  kListOffsets = 6,
  kCommitOffsets = 7,
  kFetchOffsets = 8,
  kInitProducerId = 9,
  // Consumer groups: membership (Kafka's classic group protocol) ...
  kJoinGroup = 10,
  kSyncGroup = 11,
  kHeartbeat = 12,
  kLeaveGroup = 13,
  // ... and administration.
  kListGroups = 14,
  kDescribeGroups = 15,
  kDeleteGroups = 16,
  // A group member's CommitOffsets: fenced by its generation.
  kCommitMemberOffsets = 17,
  // Security (docs/security.md): SASL authentication, as Kafka's
  // SaslHandshake v1 / SaslAuthenticate ...
  kSaslHandshake = 18,
  kSaslAuthenticate = 19,
  // ... ACLs ...
  kDescribeAcls = 20,
  kCreateAcls = 21,
  kDeleteAcls = 22,
  // ... and SCRAM credentials (`spillway user`).
  kListUsers = 23,
  kUpsertUser = 24,
  kDeleteUser = 25,
  // Replication between brokers (docs/replication.md): a follower's fetch,
  // carrying its broker epoch and the leader epoch it follows ...
  kReplicaFetch = 26,
  // ... the end offset of a leader epoch, for truncation (Kafka's
  // OffsetForLeaderEpoch) ...
  kLeaderEpochEnd = 27,
  // ... and the cluster as this broker sees it (brokers, controller, every
  // partition's leader, replicas and ISR), for clients and the CLI.
  kDescribeCluster = 28,
  // Moving partitions between brokers (`spillway partition reassign`,
  // docs/operations.md): start, change or cancel moves, and list them.
  kAlterPartitionReassignments = 29,
  kListPartitionReassignments = 30,
};

// "ApiVersions", "Produce", ... for a known key; nullptr otherwise.
const char* api_name(int16_t api_key) noexcept;

// Size of the length prefix, and of the whole fixed headers including it.
inline constexpr size_t kLengthBytes = 4;
inline constexpr size_t kRequestHeaderBytes = 12;
inline constexpr size_t kResponseHeaderBytes = 10;
// Smallest legal value of the length field: the header bytes after it.
inline constexpr uint32_t kMinRequestLength = kRequestHeaderBytes - kLengthBytes;
inline constexpr uint32_t kMinResponseLength = kResponseHeaderBytes - kLengthBytes;
// Error messages longer than this are cut on encode, so an error frame always
// fits in a small fixed buffer.
inline constexpr size_t kMaxErrorMessageBytes = 1024;
inline constexpr size_t kMaxErrorFrameBytes = kResponseHeaderBytes + 2 + kMaxErrorMessageBytes;

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  uint32_t body_bytes = 0;  // bytes of body that follow the header
};

struct ResponseHeader {
  int32_t correlation_id = 0;
  ErrorCode error_code = ErrorCode::kOk;
  uint32_t body_bytes = 0;
};

// Writes the 12 header bytes of a request whose body is `header.body_bytes`
// long. Precondition: body_bytes <= UINT32_MAX - kMinRequestLength.
void encode_request_header(const RequestHeader& header,
                           std::span<std::byte, kRequestHeaderBytes> out) noexcept;

// Decodes the 12 header bytes of a request. Every field of *out is filled even
// on error, so the caller can echo the correlation id in its error response.
// Errors: kCorruptMessage when the length is shorter than the header;
// kFrameTooLarge when the length field exceeds `max_frame_bytes`. Nothing is
// allocated either way: callers size the body only after this returns ok.
Status decode_request_header(std::span<const std::byte, kRequestHeaderBytes> in,
                             uint32_t max_frame_bytes, RequestHeader* out);

// Response counterparts of the two functions above.
void encode_response_header(const ResponseHeader& header,
                            std::span<std::byte, kResponseHeaderBytes> out) noexcept;
Status decode_response_header(std::span<const std::byte, kResponseHeaderBytes> in,
                              uint32_t max_frame_bytes, ResponseHeader* out);

// Writes a complete error response (header and error body) for `code` and
// the safe form of `message` (error_text.h: paths shortened, bytes that are
// not printable UTF-8 escaped, cut to kMaxErrorTextBytes) into `out`.
// Returns the frame size.
// Precondition: code != kOk.
size_t encode_error_response(int32_t correlation_id, ErrorCode code, std::string_view message,
                             std::span<std::byte, kMaxErrorFrameBytes> out) noexcept;

// Turns the body of a response with error code `code` (not kOk) into the
// Status it reports. A malformed body yields kCorruptMessage.
Status decode_error_body(ErrorCode code, std::span<const std::byte> body);

}  // namespace spillway::frame
