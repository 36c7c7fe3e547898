// LeaveGroup: one member (v0-2) or a batch (v3+) through the coordinator.
#include "leave_group_handler.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codec.h"
#include "core/offset_store.h"
#include "error_map.h"
#include "group_ownership.h"
#include "groups/group_coordinator.h"
#include "handlers/access.h"
#include "spillway/common/kafka/leave_group.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::LeaveGroupRequest;
using Response = kafka::LeaveGroupResponse;

void answer(Exchange& exchange, int16_t version, const std::vector<groups::LeaveMember>& leaving,
            const groups::LeaveResult& result) {
  Response r;
  r.error_code = kafka_group_error(result.status);
  std::vector<Response::Member> members;
  if (version < 3) {
    // One member: its error is the response's.
    if (r.error_code == 0 && !result.member_status.empty()) {
      r.error_code = kafka_group_error(result.member_status[0]);
    }
  } else {
    members.reserve(leaving.size());
    for (size_t i = 0; i < leaving.size(); ++i) {
      const auto& m = leaving[i];
      members.push_back({.member_id = m.member_id,
                         .group_instance_id = m.group_instance_id ? std::optional<std::string_view>(
                                                                        *m.group_instance_id)
                                                                  : std::nullopt,
                         .error_code = i < result.member_status.size()
                                           ? kafka_group_error(result.member_status[i])
                                           : int16_t{0}});
    }
  }
  r.members = members;
  respond(exchange, r);
}

}  // namespace

void LeaveGroupHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  const int16_t version = exchange.header().api_version;
  if (!OffsetStore::validate_group(request->group_id).ok()) {
    Response r;
    r.error_code = kafka_error(KafkaRefusal::kInvalidGroupName);
    respond(exchange, r);
    return;
  }
  if (!may_group(context_.broker, exchange, security::AclOperation::kRead, request->group_id)) {
    Response r;
    r.error_code = kafka_error(ErrorCode::kGroupAuthorizationFailed);
    respond(exchange, r);
    return;
  }
  if (!coordinates_group(context_, request->group_id)) {
    Response r;
    r.error_code = kafka::errors::kNotCoordinator;
    respond(exchange, r);
    return;
  }
  std::vector<groups::LeaveMember> leaving;
  if (version < 3) {
    leaving.push_back({.member_id = std::string(request->member_id)});
  } else {
    leaving.reserve(static_cast<size_t>(request->members.size()));
    for (const Request::Member& m : request->members) {
      leaving.push_back({.member_id = std::string(m.member_id),
                         .group_instance_id = m.group_instance_id
                                                  ? std::optional<std::string>(*m.group_instance_id)
                                                  : std::nullopt});
    }
  }
  auto shape = std::make_shared<std::vector<groups::LeaveMember>>(leaving);
  context_.broker.groups->leave(
      std::string(request->group_id), std::move(leaving), exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive(), version, shape](groups::LeaveResult result) {
        answer(*ex, version, *shape, result);
      });
}

}  // namespace spillway::broker::kafka_listener
