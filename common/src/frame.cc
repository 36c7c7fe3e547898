// Native frame header codec; the layout is specified in docs/protocol.md.
#include "spillway/common/frame.h"

#include <algorithm>
#include <cstring>

#include "spillway/common/endian.h"
#include "spillway/common/error_text.h"
#include "spillway/common/messages/native.h"

namespace spillway::frame {

const char* api_name(int16_t api_key) noexcept {
  switch (static_cast<ApiKey>(api_key)) {
    case ApiKey::kApiVersions:
      return "ApiVersions";
    case ApiKey::kProduce:
      return "Produce";
    case ApiKey::kFetch:
      return "Fetch";
    case ApiKey::kMetadata:
      return "Metadata";
    case ApiKey::kCreateTopics:
      return "CreateTopics";
    case ApiKey::kDeleteTopics:
      return "DeleteTopics";
    case ApiKey::kListOffsets:
      return "ListOffsets";
    case ApiKey::kCommitOffsets:
      return "CommitOffsets";
    case ApiKey::kFetchOffsets:
      return "FetchOffsets";
    case ApiKey::kInitProducerId:
      return "InitProducerId";
    case ApiKey::kJoinGroup:
      return "JoinGroup";
    case ApiKey::kSyncGroup:
      return "SyncGroup";
    case ApiKey::kHeartbeat:
      return "Heartbeat";
    case ApiKey::kLeaveGroup:
      return "LeaveGroup";
    case ApiKey::kListGroups:
      return "ListGroups";
    case ApiKey::kDescribeGroups:
      return "DescribeGroups";
    case ApiKey::kDeleteGroups:
      return "DeleteGroups";
    case ApiKey::kCommitMemberOffsets:
      return "CommitMemberOffsets";
    case ApiKey::kSaslHandshake:
      return "SaslHandshake";
    case ApiKey::kSaslAuthenticate:
      return "SaslAuthenticate";
    case ApiKey::kDescribeAcls:
      return "DescribeAcls";
    case ApiKey::kCreateAcls:
      return "CreateAcls";
    case ApiKey::kDeleteAcls:
      return "DeleteAcls";
    case ApiKey::kListUsers:
      return "ListUsers";
    case ApiKey::kUpsertUser:
      return "UpsertUser";
    case ApiKey::kDeleteUser:
      return "DeleteUser";
    case ApiKey::kReplicaFetch:
      return "ReplicaFetch";
    case ApiKey::kLeaderEpochEnd:
      return "LeaderEpochEnd";
    case ApiKey::kDescribeCluster:
      return "DescribeCluster";
    case ApiKey::kAlterPartitionReassignments:
      return "AlterPartitionReassignments";
    case ApiKey::kListPartitionReassignments:
      return "ListPartitionReassignments";
  }
  return nullptr;
}

void encode_request_header(const RequestHeader& header,
                           std::span<std::byte, kRequestHeaderBytes> out) noexcept {
  store_be<uint32_t>(out.data(), kMinRequestLength + header.body_bytes);
  store_be<int16_t>(out.data() + 4, header.api_key);
  store_be<int16_t>(out.data() + 6, header.api_version);
  store_be<int32_t>(out.data() + 8, header.correlation_id);
}

Status decode_request_header(std::span<const std::byte, kRequestHeaderBytes> in,
                             uint32_t max_frame_bytes, RequestHeader* out) {
  const auto length = load_be<uint32_t>(in.data());
  out->api_key = load_be<int16_t>(in.data() + 4);
  out->api_version = load_be<int16_t>(in.data() + 6);
  out->correlation_id = load_be<int32_t>(in.data() + 8);
  out->body_bytes = 0;
  if (length < kMinRequestLength) {
    return Status(ErrorCode::kCorruptMessage, "frame length " + std::to_string(length) +
                                                  " is shorter than the request header (" +
                                                  std::to_string(kMinRequestLength) + ")");
  }
  if (length > max_frame_bytes) {
    return Status(ErrorCode::kFrameTooLarge, "frame length " + std::to_string(length) +
                                                 " exceeds max_frame_bytes " +
                                                 std::to_string(max_frame_bytes));
  }
  out->body_bytes = length - kMinRequestLength;
  return Status::Ok();
}

void encode_response_header(const ResponseHeader& header,
                            std::span<std::byte, kResponseHeaderBytes> out) noexcept {
  store_be<uint32_t>(out.data(), kMinResponseLength + header.body_bytes);
  store_be<int32_t>(out.data() + 4, header.correlation_id);
  store_be<int16_t>(out.data() + 8, static_cast<int16_t>(header.error_code));
}

Status decode_response_header(std::span<const std::byte, kResponseHeaderBytes> in,
                              uint32_t max_frame_bytes, ResponseHeader* out) {
  const auto length = load_be<uint32_t>(in.data());
  out->correlation_id = load_be<int32_t>(in.data() + 4);
  out->error_code = static_cast<ErrorCode>(load_be<int16_t>(in.data() + 8));
  out->body_bytes = 0;
  if (length < kMinResponseLength) {
    return Status(ErrorCode::kCorruptMessage, "response length " + std::to_string(length) +
                                                  " is shorter than the response header");
  }
  if (length > max_frame_bytes) {
    return Status(ErrorCode::kFrameTooLarge, "response length " + std::to_string(length) +
                                                 " exceeds the client's limit " +
                                                 std::to_string(max_frame_bytes));
  }
  out->body_bytes = length - kMinResponseLength;
  return Status::Ok();
}

namespace {

// An error response's body: the message (its safe form on the wire).
struct ErrorBody {
  wire::ErrorText message;

  static constexpr auto fields() { return std::tuple{wire::Field<&ErrorBody::message>{"message"}}; }
};

}  // namespace

size_t encode_error_response(int32_t correlation_id, ErrorCode code, std::string_view message,
                             std::span<std::byte, kMaxErrorFrameBytes> out) noexcept {
  static_assert(kMaxErrorTextBytes <= kMaxErrorMessageBytes);
  const ErrorBody body{message};
  // kMaxErrorFrameBytes holds the longest safe message, so this never spills.
  WriteBuffer buffer(out.subspan(kResponseHeaderBytes));
  const Status encoded = wire::encode(body, messages::kNative, buffer);
  (void)encoded;
  const auto body_bytes = static_cast<uint32_t>(buffer.bytes_written());
  encode_response_header({correlation_id, code, body_bytes}, out.first<kResponseHeaderBytes>());
  return kResponseHeaderBytes + body_bytes;
}

Status decode_error_body(ErrorCode code, std::span<const std::byte> body) {
  Result<ErrorBody> decoded = wire::decode<ErrorBody>(body, messages::kNative, "error body");
  if (!decoded.ok()) {
    return Status(ErrorCode::kCorruptMessage,
                  std::string("malformed error body for code ") + error_code_name(code));
  }
  if (code == ErrorCode::kOk) {
    return Status(ErrorCode::kCorruptMessage, "error body with error code 0");
  }
  return Status(code, std::string(decoded->message.text));
}

}  // namespace spillway::frame
