// Replica placement for a new topic, as Kafka places them: the brokers are
// arranged so that racks alternate (rack a's first broker, rack b's first,
// ..., then each rack's second), each partition's first replica (its
// preferred leader) walks that list round-robin from a start index that
// varies per topic, and the other replicas follow at a shift that grows
// every full round, skipping a rack that already holds a replica of the
// partition until every rack holds one. Without racks on every broker the
// placement ignores racks. Deterministic: the start index and shift come
// from a hash of the topic name, so the same cluster places a topic the
// same way (tests rely on it; spreading comes from the hash).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cluster/cluster_state.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster {

struct PlacementBroker {
  BrokerId id = kNoBroker;
  std::string rack;
};

// replicas[p] for p in [0, partitions); kInvalidArgument when
// replication_factor exceeds the brokers (or either count is not > 0).
Result<std::vector<std::vector<BrokerId>>> assign_replicas(std::vector<PlacementBroker> brokers,
                                                           int32_t partitions,
                                                           int32_t replication_factor,
                                                           std::string_view topic);

}  // namespace spillway::broker::cluster
