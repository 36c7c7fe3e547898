// ReplicaFetch (native api key 26): a follower reading the leader's log
// (docs/replication-fetch.md). The shared fetch core (fetch_core.h) in its
// replica mode: each partition is read with Partition::replica_read on its
// owner core, which checks the follower's epochs, records its log end and
// advances the high watermark; when no partition has data the request
// long-polls up to max_wait_ms (waiters woken through
// Partition::add_waiter). Needs ClusterAction on the cluster; a broker
// that is not a replica of a partition gets kNotLeaderOrFollower for it.
// A replica that a partition move is adding, not in sync yet, is served
// under the broker's reassignment throttle (FetchCore::
// throttle_last_partition, replication/replication_throttle.h).
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class ReplicaFetchHandler final : public Handler {
 public:
  explicit ReplicaFetchHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
