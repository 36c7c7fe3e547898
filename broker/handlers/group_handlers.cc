// JoinGroup, SyncGroup, Heartbeat, LeaveGroup (native): decode, hand to the
// group coordinator, encode its answer on the connection's executor.
#include "group_handlers.h"

#include <string>
#include <vector>

#include "groups/group_coordinator.h"
#include "groups/member_host.h"
#include "handlers/access.h"
#include "spillway/common/messages/groups.h"

namespace spillway::broker {
namespace {

std::optional<std::string> owned(std::optional<std::string_view> s) {
  if (!s) return std::nullopt;
  return std::string(*s);
}

std::vector<std::byte> owned(std::span<const std::byte> b) {
  return std::vector<std::byte>(b.begin(), b.end());
}

}  // namespace

void JoinGroupHandler::handle(Exchange& exchange) {
  Result<messages::JoinGroupRequest> request = messages::decode_join_group_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_group(context_, exchange, security::AclOperation::kRead, request->group_id)) {
    exchange.finish(Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to read the group"));
    return;
  }
  groups::JoinRequest join;
  join.group_id = std::string(request->group_id);
  join.member_id = std::string(request->member_id);
  join.group_instance_id = owned(request->group_instance_id);
  join.client_id = "spillway-native";
  join.client_host = groups::member_host(exchange.peer());
  join.session_timeout = std::chrono::milliseconds(request->session_timeout_ms);
  join.rebalance_timeout = std::chrono::milliseconds(request->rebalance_timeout_ms);
  join.protocol_type = std::string(request->protocol_type);
  // The coordinator checks the count against its limit; the decoder has
  // already checked it against the bytes that came.
  join.protocols.reserve(static_cast<size_t>(request->protocols.size()));
  for (const messages::JoinGroupProtocol& p : request->protocols) {
    join.protocols.push_back({std::string(p.name), owned(p.metadata)});
  }
  context_.groups->join(
      std::move(join), exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive()](groups::JoinResult result) {
        if (!result.status.ok()) {
          ex->finish(result.status);
          return;
        }
        std::vector<messages::JoinGroupMember> members;
        members.reserve(result.members.size());
        for (const groups::JoinMember& m : result.members) {
          members.push_back(
              {.member_id = m.member_id,
               .group_instance_id = m.group_instance_id
                                        ? std::optional<std::string_view>(*m.group_instance_id)
                                        : std::nullopt,
               .metadata = m.metadata});
        }
        ex->finish(messages::encode_join_group_response({.generation_id = result.generation,
                                                         .protocol_type = result.protocol_type,
                                                         .protocol_name = result.protocol_name,
                                                         .leader_id = result.leader_id,
                                                         .member_id = result.member_id,
                                                         .members = members},
                                                        ex->out()));
      });
}

void SyncGroupHandler::handle(Exchange& exchange) {
  Result<messages::SyncGroupRequest> request = messages::decode_sync_group_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_group(context_, exchange, security::AclOperation::kRead, request->group_id)) {
    exchange.finish(Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to read the group"));
    return;
  }
  groups::SyncRequest sync;
  sync.group_id = std::string(request->group_id);
  sync.member_id = std::string(request->member_id);
  sync.generation = request->generation_id;
  sync.group_instance_id = owned(request->group_instance_id);
  sync.assignments.reserve(static_cast<size_t>(request->assignments.size()));
  for (const messages::SyncGroupAssignment& a : request->assignments) {
    sync.assignments.emplace_back(std::string(a.member_id), owned(a.assignment));
  }
  context_.groups->sync(
      std::move(sync), exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive()](groups::SyncResult result) {
        if (!result.status.ok()) {
          ex->finish(result.status);
          return;
        }
        ex->finish(messages::encode_sync_group_response({.protocol_type = result.protocol_type,
                                                         .protocol_name = result.protocol_name,
                                                         .assignment = result.assignment},
                                                        ex->out()));
      });
}

void HeartbeatHandler::handle(Exchange& exchange) {
  Result<messages::HeartbeatRequest> request = messages::decode_heartbeat_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_group(context_, exchange, security::AclOperation::kRead, request->group_id)) {
    exchange.finish(Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to read the group"));
    return;
  }
  context_.groups->heartbeat(
      std::string(request->group_id), std::string(request->member_id), request->generation_id,
      owned(request->group_instance_id), exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive()](Status st) { ex->finish(st); });
}

void LeaveGroupHandler::handle(Exchange& exchange) {
  Result<messages::LeaveGroupRequest> request =
      messages::decode_leave_group_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_group(context_, exchange, security::AclOperation::kRead, request->group_id)) {
    exchange.finish(Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to read the group"));
    return;
  }
  std::vector<groups::LeaveMember> members;
  members.reserve(static_cast<size_t>(request->members.size()));
  for (const messages::LeaveGroupMember& m : request->members) {
    members.push_back({std::string(m.member_id), owned(m.group_instance_id)});
  }
  // The response names the members in request order; keep their ids.
  std::vector<std::string> ids;
  ids.reserve(members.size());
  for (const groups::LeaveMember& m : members) ids.push_back(m.member_id);
  context_.groups->leave(
      std::string(request->group_id), std::move(members), exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive(),
       ids = std::move(ids)](groups::LeaveResult result) {
        if (!result.status.ok()) {
          ex->finish(result.status);
          return;
        }
        std::vector<messages::LeaveGroupMemberResult> results;
        results.reserve(ids.size());
        static const Status kLeft = Status::Ok();
        for (size_t i = 0; i < ids.size(); ++i) {
          const Status& st = i < result.member_status.size() ? result.member_status[i] : kLeft;
          results.push_back(
              {.member_id = ids[i], .error_code = st.code(), .error_message = st.message()});
        }
        ex->finish(messages::encode_leave_group_response({results}, ex->out()));
      });
}

}  // namespace spillway::broker
