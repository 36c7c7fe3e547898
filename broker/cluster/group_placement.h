// Which broker coordinates a consumer group in a cluster. Every broker
// answers FindCoordinator on its own, from its own snapshot, so the choice
// is a pure function of the group name and the live brokers: rendezvous
// (highest random weight) hashing. When a broker dies only the groups it
// coordinated move, each to the broker that scores next for it; the others
// stay where they are (a hash modulo the broker count would move most).
#pragma once

#include <string_view>

#include "cluster/cluster_state.h"

namespace spillway::broker::cluster {

// The coordinator of `group` among the snapshot's live brokers; kNoBroker
// when none is alive.
BrokerId group_coordinator(const ClusterSnapshot& snapshot, std::string_view group);

}  // namespace spillway::broker::cluster
