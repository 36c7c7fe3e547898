// AlterPartitionReassignments (native api key 29) and
// ListPartitionReassignments (30): moving partitions between the brokers
// of a replicated cluster (`spillway partition reassign`, docs/operations.md).
//
// Alter records the moves in etcd through ClusterAdmin::reassign_partitions
// (one write per topic) and answers, one result per partition, once this
// broker's snapshot shows them; the controller then carries them out. It
// needs Alter on the cluster (Kafka's rule for AlterPartitionReassignments);
// List needs Describe on it and answers from this broker's snapshot. Whole
// requests are refused in the frame header: kInvalidArgument on a broker
// without a cluster, for no partitions, more than kMaxReassignPartitions or
// a negative throttle; kInvalidReplicaAssignment for a target of more than
// kMaxReassignReplicas replicas (checked before anything is copied).
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class AlterPartitionReassignmentsHandler final : public Handler {
 public:
  explicit AlterPartitionReassignmentsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class ListPartitionReassignmentsHandler final : public Handler {
 public:
  explicit ListPartitionReassignmentsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
