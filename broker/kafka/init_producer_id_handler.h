// InitProducerId on the Kafka listener (api key 22, every version the
// description covers): an idempotent producer's id and epoch. Transactions
// are not served: a request with a transactional id gets
// COORDINATOR_NOT_AVAILABLE, as FindCoordinator answers for a transaction
// coordinator (docs/kafka.md, "Idempotent producers").
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class InitProducerIdHandler final : public Handler {
 public:
  explicit InitProducerIdHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
