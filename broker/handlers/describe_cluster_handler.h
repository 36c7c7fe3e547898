// DescribeCluster (native api key 28): the cluster as this broker sees it,
// from the ClusterMember's latest snapshot (cluster/cluster_state.h): the
// controller, the live brokers, and every topic's partitions with leader,
// epoch, replicas and ISR (`spillway cluster describe`). kInvalidArgument
// "not a cluster" on a broker without one. Needs Describe on the cluster.
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class DescribeClusterHandler final : public Handler {
 public:
  explicit DescribeClusterHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
