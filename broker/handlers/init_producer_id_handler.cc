// InitProducerId (native).
#include "init_producer_id_handler.h"

#include "core/producer_ids.h"
#include "handlers/access.h"
#include "spillway/common/messages/producer_id.h"

namespace spillway::broker {

void InitProducerIdHandler::handle(Exchange& exchange) {
  Result<messages::InitProducerIdRequest> request =
      messages::decode_init_producer_id_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_write_idempotently(context_, exchange)) {
    exchange.finish(
        Status(ErrorCode::kClusterAuthorizationFailed,
               "idempotent producing needs IdempotentWrite on the cluster or Write on a topic"));
    return;
  }
  if (context_.producer_ids == nullptr) {
    exchange.finish(
        Status(ErrorCode::kUnsupportedVersion, "this broker hands out no producer ids"));
    return;
  }
  // Every session gets a fresh id at epoch 0; the id it had (if any) is
  // simply abandoned, and its state on the partitions expires.
  Result<int64_t> id = context_.producer_ids->allocate();
  if (!id.ok()) {
    exchange.finish(id.status());
    return;
  }
  exchange.finish(messages::encode_init_producer_id_response(
      {.producer_id = *id, .producer_epoch = 0}, exchange.out()));
}

}  // namespace spillway::broker
