// LeaveGroup (key 13, v0-5): members leave a group; v0-2 name one member
// (its error is the response's), v3+ a batch, each by member id or
// group.instance.id, each with its own error.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class LeaveGroupHandler final : public Handler {
 public:
  explicit LeaveGroupHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
