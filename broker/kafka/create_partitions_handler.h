// Kafka's CreatePartitions (key 37, v0-3): raises a topic's partition count
// through TopicRegistry::add_partitions (new partition directories, then
// topic.meta; every core serves the grown topic before the answer).
// Replica assignments, when given, must put each new partition on this
// broker alone. A count not above the current one gets INVALID_PARTITIONS;
// validate_only checks and changes nothing.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class CreatePartitionsHandler final : public Handler {
 public:
  explicit CreatePartitionsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
