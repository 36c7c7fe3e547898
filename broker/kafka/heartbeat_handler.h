// Heartbeat (key 12, v0-4): a member is alive; REBALANCE_IN_PROGRESS tells
// it to rejoin, UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION / FENCED_INSTANCE_ID
// that it is out. A heartbeat for a group the broker does not have gets
// UNKNOWN_MEMBER_ID, as Kafka answers.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class HeartbeatHandler final : public Handler {
 public:
  explicit HeartbeatHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
