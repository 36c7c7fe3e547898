// InitProducerId (Kafka).
#include "init_producer_id_handler.h"

#include "codec.h"
#include "core/producer_ids.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/init_producer_id.h"

namespace spillway::broker::kafka_listener {

void InitProducerIdHandler::handle(Exchange& exchange) {
  Result<kafka::InitProducerIdRequest> request =
      decode_request<kafka::InitProducerIdRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  kafka::InitProducerIdResponse response;
  response.producer_id = -1;
  response.producer_epoch = -1;
  if (request->transactional_id.has_value()) {
    // No transaction coordinator here (FindCoordinator says the same): the
    // client retries and then fails its init_transactions() with it.
    response.error_code = kafka::errors::kCoordinatorNotAvailable;
  } else if (!may_write_idempotently(context_.broker, exchange)) {
    // IdempotentWrite on the cluster or Write on some topic (Kafka 2.8+).
    response.error_code = kafka_error(ErrorCode::kClusterAuthorizationFailed);
  } else if (context_.broker.producer_ids == nullptr) {
    response.error_code = kafka_error(ErrorCode::kUnsupportedVersion);
  } else if (Result<int64_t> id = context_.broker.producer_ids->allocate(); !id.ok()) {
    response.error_code = kafka_error(id.status().code());
  } else {
    // Without a transactional id Kafka ignores the id and epoch a v3+
    // request passes and hands out a new id at epoch 0; so does this.
    response.producer_id = *id;
    response.producer_epoch = 0;
  }
  respond(exchange, response);
}

}  // namespace spillway::broker::kafka_listener
