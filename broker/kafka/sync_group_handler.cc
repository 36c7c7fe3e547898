// SyncGroup: sizes checked on the request's bytes, then the coordinator.
#include "sync_group_handler.h"

#include <optional>
#include <string>
#include <vector>

#include "codec.h"
#include "core/offset_store.h"
#include "error_map.h"
#include "group_ownership.h"
#include "groups/group_coordinator.h"
#include "handlers/access.h"
#include "spillway/common/kafka/sync_group.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::SyncGroupRequest;
using Response = kafka::SyncGroupResponse;

std::optional<std::string> owned(std::optional<std::string_view> s) {
  return s ? std::optional<std::string>(*s) : std::nullopt;
}

}  // namespace

void SyncGroupHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  auto refuse = [&](int16_t code) {
    Response r;
    r.error_code = code;
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
  for (const Request::Assignment& a : request->assignments) {
    if (static_cast<int64_t>(a.assignment.size()) >
        context_.broker.config.group_max_assignment_bytes) {
      refuse(kafka_error(ErrorCode::kInvalidArgument));
      return;
    }
  }
  groups::SyncRequest sync;
  sync.group_id = request->group_id;
  sync.member_id = request->member_id;
  sync.generation = request->generation_id;
  sync.group_instance_id = owned(request->group_instance_id);
  sync.protocol_type = owned(request->protocol_type);
  sync.protocol_name = owned(request->protocol_name);
  sync.assignments.reserve(static_cast<size_t>(request->assignments.size()));
  for (const Request::Assignment& a : request->assignments) {
    sync.assignments.emplace_back(std::string(a.member_id),
                                  std::vector<std::byte>(a.assignment.begin(), a.assignment.end()));
  }
  context_.broker.groups->sync(
      std::move(sync), exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive()](groups::SyncResult result) {
        Response r;
        r.error_code = kafka_group_error(result.status);
        if (result.status.ok()) {
          r.protocol_type = result.protocol_type;
          r.protocol_name = result.protocol_name;
        }
        r.assignment = result.assignment;
        respond(*ex, r);
      });
}

}  // namespace spillway::broker::kafka_listener
