// Kafka's ApiVersions (key 18, v0-3), the first request of every Kafka
// client: what this listener serves, exactly (the dispatcher's table). A
// request for a version above the served ones gets UNSUPPORTED_VERSION and
// the list in the v0 layout, as Kafka answers, so the client can retry at a
// version it finds there.
#pragma once

#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class ApiVersionsHandler final : public Handler {
 public:
  // `dispatcher` (the Kafka listener's) must outlive the handler.
  explicit ApiVersionsHandler(const Dispatcher& dispatcher) : dispatcher_(dispatcher) {}
  void handle(Exchange& exchange) override;

 private:
  const Dispatcher& dispatcher_;
};

}  // namespace spillway::broker::kafka_listener
