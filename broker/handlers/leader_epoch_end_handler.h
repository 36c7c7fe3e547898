// LeaderEpochEnd (native api key 27): the end offset of a leader epoch on
// this broker (Kafka's OffsetForLeaderEpoch between brokers, KIP-101/279;
// docs/replication-fetch.md). Each partition's Partition::epoch_end runs on
// its owner core; the answer is sent once every partition replied. A
// follower asks it before truncating its log after a leader change. Needs
// ClusterAction on the cluster.
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class LeaderEpochEndHandler final : public Handler {
 public:
  explicit LeaderEpochEndHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
