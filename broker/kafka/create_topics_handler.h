// Kafka's CreateTopics (key 19, v2-7): topics with a partition count (or
// explicit assignments, all on this broker), replication factor 1 (-1 = the
// default, which is 1 on a single node), and the configs topic_configs.h
// lists; validate_only checks everything and creates nothing. The answer
// comes once every core serves the new topics.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class CreateTopicsHandler final : public Handler {
 public:
  explicit CreateTopicsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
