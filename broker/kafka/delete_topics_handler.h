// Kafka's DeleteTopics (key 20, v1-6): deletes topics by name through the
// TopicRegistry, and forgets their committed offsets, as the native
// DeleteTopics does. v6 may name a topic by id only; Spillway has no topic
// ids, so such an entry gets UNKNOWN_TOPIC_ID. The answer comes once every
// core has dropped the topics.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class DeleteTopicsHandler final : public Handler {
 public:
  explicit DeleteTopicsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
