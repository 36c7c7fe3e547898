// JoinGroup, SyncGroup, Heartbeat, LeaveGroup over a Channel (group_calls.h).
#include "group_calls.h"

#include "spillway/common/kafka/consumer_protocol.h"
#include "spillway/common/messages/groups.h"

namespace spillway::wire {

Result<JoinAnswer> join_group(Channel& channel, const JoinCall& call) {
  const messages::JoinGroupProtocol protocols[] = {{call.protocol_name, call.metadata}};
  const messages::JoinGroupRequest request{
      .group_id = call.group_id,
      .member_id = call.member_id,
      .group_instance_id = std::nullopt,
      .session_timeout_ms = static_cast<int32_t>(call.session_timeout.count()),
      .rebalance_timeout_ms = static_cast<int32_t>(call.rebalance_timeout.count()),
      .protocol_type = kafka::kConsumerProtocolType,
      .protocols = protocols};
  Result<std::vector<std::byte>> body = channel.call(
      frame::ApiKey::kJoinGroup, messages::kJoinGroupVersion,
      call.rebalance_timeout + channel.options().request_timeout,
      [&](WriteBuffer& out) { return messages::encode_join_group_request(request, out); });
  if (!body.ok()) return body.status();
  Result<messages::JoinGroupResponse> decoded = messages::decode_join_group_response(*body);
  if (!decoded.ok()) return decoded.status();
  JoinAnswer out;
  out.generation = decoded->generation_id;
  out.protocol_name = std::string(decoded->protocol_name);
  out.leader_id = std::string(decoded->leader_id);
  out.member_id = std::string(decoded->member_id);
  for (const messages::JoinGroupMember& m : decoded->members) {
    out.members.push_back(
        {std::string(m.member_id), std::vector<std::byte>(m.metadata.begin(), m.metadata.end())});
  }
  return out;
}

Result<std::vector<std::byte>> sync_group(
    Channel& channel, std::string_view group_id, std::string_view member_id, int32_t generation,
    const std::vector<std::pair<std::string, std::vector<std::byte>>>& assignments,
    std::chrono::milliseconds timeout) {
  std::vector<messages::SyncGroupAssignment> views;
  views.reserve(assignments.size());
  for (const auto& [id, bytes] : assignments) views.push_back({id, bytes});
  const messages::SyncGroupRequest request{.group_id = group_id,
                                           .member_id = member_id,
                                           .generation_id = generation,
                                           .group_instance_id = std::nullopt,
                                           .assignments = views};
  Result<std::vector<std::byte>> body = channel.call(
      frame::ApiKey::kSyncGroup, messages::kSyncGroupVersion,
      timeout + channel.options().request_timeout,
      [&](WriteBuffer& out) { return messages::encode_sync_group_request(request, out); });
  if (!body.ok()) return body.status();
  Result<messages::SyncGroupResponse> decoded = messages::decode_sync_group_response(*body);
  if (!decoded.ok()) return decoded.status();
  return std::vector<std::byte>(decoded->assignment.begin(), decoded->assignment.end());
}

Status heartbeat(Channel& channel, std::string_view group_id, std::string_view member_id,
                 int32_t generation) {
  const messages::HeartbeatRequest request{.group_id = group_id,
                                           .member_id = member_id,
                                           .generation_id = generation,
                                           .group_instance_id = std::nullopt};
  Result<std::vector<std::byte>> body = channel.call(
      frame::ApiKey::kHeartbeat, messages::kHeartbeatVersion,
      [&](WriteBuffer& out) { return messages::encode_heartbeat_request(request, out); });
  return body.status();
}

Status leave_group(Channel& channel, std::string_view group_id, std::string_view member_id) {
  const messages::LeaveGroupMember members[] = {{member_id, std::nullopt}};
  const messages::LeaveGroupRequest request{.group_id = group_id, .members = members};
  Result<std::vector<std::byte>> body = channel.call(
      frame::ApiKey::kLeaveGroup, messages::kLeaveGroupVersion,
      [&](WriteBuffer& out) { return messages::encode_leave_group_request(request, out); });
  if (!body.ok()) return body.status();
  Result<messages::LeaveGroupResponse> decoded = messages::decode_leave_group_response(*body);
  if (!decoded.ok()) return decoded.status();
  for (const messages::LeaveGroupMemberResult& r : decoded->members) {
    if (r.error_code != ErrorCode::kOk) return Status(r.error_code, std::string(r.error_message));
  }
  return Status::Ok();
}

}  // namespace spillway::wire
