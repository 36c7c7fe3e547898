// What the Kafka listener's handlers share: the broker's topics, offsets,
// configuration and metrics (BrokerContext), and who this broker is to a
// Kafka client: its node id, the host and port it advertises in Metadata and
// FindCoordinator, and the cluster id. Owned by main(); outlives the server.
#pragma once

#include <cstdint>
#include <string>

#include "handlers/broker_context.h"

namespace spillway::broker::kafka_listener {

struct KafkaContext {
  BrokerContext& broker;
  int32_t node_id = 0;
  std::string advertised_host;
  int32_t advertised_port = 0;
  std::string cluster_id;
};

}  // namespace spillway::broker::kafka_listener
