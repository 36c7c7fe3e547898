// CommitOffsets, CommitMemberOffsets and FetchOffsets: their descriptions (messages/offsets.h)
// run both ways.
#include "spillway/common/messages/offsets.h"

namespace spillway::messages {

Result<CommitOffsetsRequest> decode_commit_offsets_request(std::span<const std::byte> body) {
  return wire::decode<CommitOffsetsRequest>(body, kNative, "CommitOffsets request");
}
Status encode_commit_offsets_request(const CommitOffsetsRequest& request,
                                     WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<CommitMemberOffsetsRequest> decode_commit_member_offsets_request(
    std::span<const std::byte> body) {
  return wire::decode<CommitMemberOffsetsRequest>(body, kNative, "CommitMemberOffsets request");
}
Status encode_commit_member_offsets_request(const CommitMemberOffsetsRequest& request,
                                            WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<CommitOffsetsResponse> decode_commit_offsets_response(std::span<const std::byte> body) {
  return wire::decode<CommitOffsetsResponse>(body, kNative, "CommitOffsets response");
}
Status encode_commit_offsets_response(const CommitOffsetsResponse& response,
                                      WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}
Result<FetchOffsetsRequest> decode_fetch_offsets_request(std::span<const std::byte> body) {
  return wire::decode<FetchOffsetsRequest>(body, kNative, "FetchOffsets request");
}
Status encode_fetch_offsets_request(const FetchOffsetsRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<FetchOffsetsResponse> decode_fetch_offsets_response(std::span<const std::byte> body) {
  return wire::decode<FetchOffsetsResponse>(body, kNative, "FetchOffsets response");
}
Status encode_fetch_offsets_response(const FetchOffsetsResponse& response,
                                     WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
