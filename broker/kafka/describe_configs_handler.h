// Kafka's DescribeConfigs (key 32, v0-4): a topic's configs
// (topic_configs.h: retention, segment size, cleanup.policy=delete,
// max.message.bytes, spillway.flush.policy) and this broker's settings that
// decide them, all read-only. An unknown topic gets
// UNKNOWN_TOPIC_OR_PARTITION for its resource alone; resource types other
// than topic and broker get INVALID_REQUEST.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class DescribeConfigsHandler final : public Handler {
 public:
  explicit DescribeConfigsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
