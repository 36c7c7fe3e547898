// JoinGroup (key 11, v0-7): a member joins a consumer group through the
// coordinator (groups/group_coordinator.h). v4+ first joins get
// MEMBER_ID_REQUIRED and the id to use; the leader's answer carries every
// member's subscription. Served up to v7: v8 adds a reason (harmless) and
// v9 skip_assignment, which this broker does not set.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class JoinGroupHandler final : public Handler {
 public:
  explicit JoinGroupHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
