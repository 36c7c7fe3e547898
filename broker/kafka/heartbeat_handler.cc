// Heartbeat: straight to the coordinator.
#include "heartbeat_handler.h"

#include <optional>
#include <string>

#include "codec.h"
#include "core/offset_store.h"
#include "error_map.h"
#include "group_ownership.h"
#include "groups/group_coordinator.h"
#include "handlers/access.h"
#include "spillway/common/kafka/heartbeat.h"

namespace spillway::broker::kafka_listener {

void HeartbeatHandler::handle(Exchange& exchange) {
  using Request = kafka::HeartbeatRequest;
  using Response = kafka::HeartbeatResponse;
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
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
  std::optional<std::string> instance;
  if (request->group_instance_id) instance = std::string(*request->group_instance_id);
  context_.broker.groups->heartbeat(std::string(request->group_id), std::string(request->member_id),
                                    request->generation_id, std::move(instance),
                                    exchange.executor(),
                                    [ex = &exchange, keep = exchange.keep_alive()](Status st) {
                                      Response r;
                                      r.error_code = kafka_group_error(st);
                                      respond(*ex, r);
                                    });
}

}  // namespace spillway::broker::kafka_listener
