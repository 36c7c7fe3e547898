// Which broker coordinates a consumer group, as the Kafka group handlers
// need it: this broker without a cluster; in a cluster, the broker that
// cluster::group_coordinator picks from this broker's snapshot, the same
// pick every broker makes. A broker that is not the group's coordinator
// answers the group's requests with NOT_COORDINATOR, so a client sent here
// by an older FindCoordinator asks again (Kafka's rule); without it, the
// members of one group on different brokers formed one group per broker and
// each read every partition.
#pragma once

#include <string_view>

#include "kafka_context.h"
#include "spillway/common/kafka/error_codes.h"  // kNotCoordinator, which callers answer

namespace spillway::broker::kafka_listener {

// The coordinator's node id (kNoBroker when the cluster has no live broker
// in this broker's view).
int32_t group_coordinator_id(const KafkaContext& context, std::string_view group);

inline bool coordinates_group(const KafkaContext& context, std::string_view group) {
  return group_coordinator_id(context, group) == context.node_id;
}

}  // namespace spillway::broker::kafka_listener
