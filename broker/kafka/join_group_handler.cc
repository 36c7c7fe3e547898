// JoinGroup: bounds checked on the request's bytes, then the coordinator.
#include "join_group_handler.h"

#include <optional>
#include <string>
#include <vector>

#include "codec.h"
#include "core/offset_store.h"
#include "error_map.h"
#include "group_ownership.h"
#include "groups/group_coordinator.h"
#include "groups/member_host.h"
#include "handlers/access.h"
#include "spillway/common/kafka/join_group.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::JoinGroupRequest;
using Response = kafka::JoinGroupResponse;

void answer(Exchange& exchange, int16_t version, const groups::JoinResult& result) {
  Response r;
  r.error_code = kafka_group_error(result.status);
  r.generation_id = result.generation;
  const bool ok = result.status.ok();
  if (version >= 7) {
    if (ok) r.protocol_type = result.protocol_type;
    if (ok) r.protocol_name = result.protocol_name;
  } else {
    r.protocol_name = ok ? std::string_view(result.protocol_name) : std::string_view();
  }
  r.leader = result.leader_id;
  r.member_id = result.member_id;
  std::vector<Response::Member> members;
  members.reserve(result.members.size());
  for (const groups::JoinMember& m : result.members) {
    members.push_back({.member_id = m.member_id,
                       .group_instance_id = m.group_instance_id ? std::optional<std::string_view>(
                                                                      *m.group_instance_id)
                                                                : std::nullopt,
                       .metadata = m.metadata});
  }
  r.members = members;
  respond(exchange, r);
}

}  // namespace

void JoinGroupHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  const int16_t version = exchange.header().api_version;
  const BrokerConfig& config = context_.broker.config;
  auto refuse = [&](int16_t code) {
    Response r;
    r.error_code = code;
    r.member_id = request->member_id;
    if (version < 7) r.protocol_name = std::string_view();
    respond(exchange, r);
  };
  if (!OffsetStore::validate_group(request->group_id).ok()) {
    refuse(kafka_error(KafkaRefusal::kInvalidGroupName));
    return;
  }
  if (!may_group(context_.broker, exchange, security::AclOperation::kRead, request->group_id)) {
    refuse(kafka_error(ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  if (!coordinates_group(context_, request->group_id)) {
    refuse(kafka::errors::kNotCoordinator);
    return;
  }
  // Bad input costs nothing: counts and sizes before any copy.
  if (request->protocols.size() > config.group_max_protocols) {
    refuse(kafka_error(ErrorCode::kInvalidArgument));
    return;
  }
  for (const Request::Protocol& p : request->protocols) {
    if (static_cast<int64_t>(p.metadata.size()) > config.group_max_metadata_bytes) {
      refuse(kafka_error(ErrorCode::kInvalidArgument));
      return;
    }
  }
  groups::JoinRequest join;
  join.group_id = request->group_id;
  join.member_id = request->member_id;
  if (request->group_instance_id) join.group_instance_id = std::string(*request->group_instance_id);
  join.client_id = exchange.client_id();
  join.client_host = groups::member_host(exchange.peer());
  join.session_timeout = std::chrono::milliseconds(request->session_timeout_ms);
  // v0 has no rebalance timeout: Kafka uses the session timeout.
  join.rebalance_timeout =
      std::chrono::milliseconds(request->rebalance_timeout_ms >= 0 ? request->rebalance_timeout_ms
                                                                   : request->session_timeout_ms);
  join.protocol_type = request->protocol_type;
  join.protocols.reserve(static_cast<size_t>(request->protocols.size()));
  for (const Request::Protocol& p : request->protocols) {
    join.protocols.push_back(
        {.name = std::string(p.name),
         .metadata = std::vector<std::byte>(p.metadata.begin(), p.metadata.end())});
  }
  join.require_known_member_id = version >= 4;
  context_.broker.groups->join(std::move(join), exchange.executor(),
                               [ex = &exchange, keep = exchange.keep_alive(), version](
                                   groups::JoinResult result) { answer(*ex, version, result); });
}

}  // namespace spillway::broker::kafka_listener
