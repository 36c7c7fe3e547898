// Kafka's OffsetForLeaderEpoch (key 23, v0-4). One node, so every partition
// has had one leader epoch, 0, since it was made: asked for epoch 0 the
// answer is the high watermark (the end of epoch 0, which is the current
// one); asked for any other epoch, Kafka's "undefined" (-1, epoch -1). A
// client naming a current epoch above 0 gets UNKNOWN_LEADER_EPOCH. Consumers
// use this after a leader change to detect truncation; here there is none.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class OffsetForLeaderEpochHandler final : public Handler {
 public:
  explicit OffsetForLeaderEpochHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
