// InitProducerId on the native listener: a new idempotent producer id
// (core/producer_ids.h) with epoch 0. docs/protocol.md, "InitProducerId".
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class InitProducerIdHandler final : public Handler {
 public:
  explicit InitProducerIdHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
