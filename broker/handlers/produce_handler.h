// Produce (api key 1): validates each batch, hands it to the partition's owner
// core for the append, and answers once every partition has replied as its
// acks level requires (docs/protocol.md, "Produce"). With partition -1 the
// records are routed by key (KeyPartitioner; keyless records sticky per
// batch) into per-partition batches built in pooled buffers.
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class ProduceHandler final : public Handler {
 public:
  explicit ProduceHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
