// What the request handlers share: the topics, the committed offsets, the
// metrics and the configuration. Owned by main(); outlives the server.
#pragma once

#include "config/broker_config.h"
#include "core/offset_store.h"
#include "core/topic_registry.h"

namespace spillway::broker {

class Metrics;
class ProducerIds;
namespace groups {
class GroupCoordinator;
}

struct BrokerContext {
  TopicRegistry& topics;
  OffsetStore& offsets;
  const BrokerConfig& config;
  Metrics* metrics = nullptr;  // null in tests without metrics
  // Idempotent producers' ids; null: InitProducerId is refused.
  ProducerIds* producer_ids = nullptr;
  // Consumer groups with members; null: the Kafka listener does not serve
  // JoinGroup, SyncGroup, Heartbeat and LeaveGroup.
  groups::GroupCoordinator* groups = nullptr;
};

}  // namespace spillway::broker
