// Group ownership in a cluster.
#include "group_ownership.h"

#include "cluster/cluster_admin.h"
#include "cluster/group_placement.h"

namespace spillway::broker::kafka_listener {

int32_t group_coordinator_id(const KafkaContext& context, std::string_view group) {
  if (context.broker.cluster_admin == nullptr) return context.node_id;
  cluster::SnapshotPtr snapshot = context.broker.cluster_admin->snapshot();
  return snapshot ? cluster::group_coordinator(*snapshot, group) : kNoBroker;
}

}  // namespace spillway::broker::kafka_listener
