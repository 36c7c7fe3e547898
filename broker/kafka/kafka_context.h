// What the Kafka listener's handlers share: the broker's topics, offsets,
// configuration and metrics (BrokerContext), and who this broker is to a
// Kafka client: its node id, the host and port it advertises in Metadata and
// FindCoordinator, and the cluster id. Owned by main(); outlives the server.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "handlers/broker_context.h"
#include "protocol/exchange.h"
#include "security/connection_security.h"

namespace spillway::broker::kafka_listener {

// An address told to Kafka clients.
struct AdvertisedAddress {
  std::string host;
  int32_t port = 0;
};

struct KafkaContext {
  BrokerContext& broker;
  int32_t node_id = 0;
  // What each listener advertises, by listener index
  // (ConnectionSecurity::listener); entries of native listeners are unused.
  // A client is told the address of the listener it came in on, so one on
  // the SASL_SSL listener is never sent to the PLAINTEXT one.
  std::vector<AdvertisedAddress> advertised;
  std::string cluster_id;

  // The address to tell the client of `exchange` (its listener's).
  const AdvertisedAddress& advertised_for(const Exchange& exchange) const {
    static const AdvertisedAddress kNone{};
    const size_t listener = exchange.security() ? exchange.security()->listener : 0;
    if (listener < advertised.size()) return advertised[listener];
    // In-process tests without a connection: the first Kafka listener's.
    for (const AdvertisedAddress& a : advertised) {
      if (a.port != 0) return a;
    }
    return kNone;
  }
};

}  // namespace spillway::broker::kafka_listener
