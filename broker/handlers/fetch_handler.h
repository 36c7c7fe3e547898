// Fetch (api key 2): reads whole stored batches from each partition's owner
// core and copies them verbatim into the response (pread from the segment
// file into the pooled response buffer). When no partition has data the
// request long-polls: a waiter on every partition, woken by the next append
// or durable advance, and a timer for max_wait_ms; no busy loop.
// docs/protocol.md, "Fetch".
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class FetchHandler final : public Handler {
 public:
  explicit FetchHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
