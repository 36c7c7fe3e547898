// JoinGroup, SyncGroup, Heartbeat, LeaveGroup: their descriptions
// (messages/groups.h) run both ways.
#include "spillway/common/messages/groups.h"

namespace spillway::messages {

Result<JoinGroupRequest> decode_join_group_request(std::span<const std::byte> body) {
  return wire::decode<JoinGroupRequest>(body, kNative, "JoinGroup request");
}
Status encode_join_group_request(const JoinGroupRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<JoinGroupResponse> decode_join_group_response(std::span<const std::byte> body) {
  return wire::decode<JoinGroupResponse>(body, kNative, "JoinGroup response");
}
Status encode_join_group_response(const JoinGroupResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}
Result<SyncGroupRequest> decode_sync_group_request(std::span<const std::byte> body) {
  return wire::decode<SyncGroupRequest>(body, kNative, "SyncGroup request");
}
Status encode_sync_group_request(const SyncGroupRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<SyncGroupResponse> decode_sync_group_response(std::span<const std::byte> body) {
  return wire::decode<SyncGroupResponse>(body, kNative, "SyncGroup response");
}
Status encode_sync_group_response(const SyncGroupResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}
Result<HeartbeatRequest> decode_heartbeat_request(std::span<const std::byte> body) {
  return wire::decode<HeartbeatRequest>(body, kNative, "Heartbeat request");
}
Status encode_heartbeat_request(const HeartbeatRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<LeaveGroupRequest> decode_leave_group_request(std::span<const std::byte> body) {
  return wire::decode<LeaveGroupRequest>(body, kNative, "LeaveGroup request");
}
Status encode_leave_group_request(const LeaveGroupRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<LeaveGroupResponse> decode_leave_group_response(std::span<const std::byte> body) {
  return wire::decode<LeaveGroupResponse>(body, kNative, "LeaveGroup response");
}
Status encode_leave_group_response(const LeaveGroupResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
