// SyncGroup (key 14, v0-5): after JoinGroup the leader sends every member's
// assignment; each member gets its own back once the leader's has arrived.
// A follower's assignments are ignored, as Kafka does.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class SyncGroupHandler final : public Handler {
 public:
  explicit SyncGroupHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
