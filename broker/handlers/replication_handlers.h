// The broker-to-broker replication requests (docs/replication-fetch.md):
// ReplicaFetch (26) and LeaderEpochEnd (27), registered on the native
// dispatcher next to NativeHandlers. Kept apart from NativeHandlers because
// they are the only handlers that call the Partition's replication methods
// (replica_read, epoch_end): a binary that never constructs this links
// without them.
#pragma once

#include "broker_context.h"
#include "leader_epoch_end_handler.h"
#include "protocol/dispatcher.h"
#include "replica_fetch_handler.h"

namespace spillway::broker {

class ReplicationHandlers {
 public:
  // Registers both on `dispatcher` (the native one); `context` and
  // `dispatcher` must outlive this.
  ReplicationHandlers(Dispatcher& dispatcher, BrokerContext& context);
  ReplicationHandlers(const ReplicationHandlers&) = delete;
  ReplicationHandlers& operator=(const ReplicationHandlers&) = delete;

 private:
  ReplicaFetchHandler replica_fetch_;
  LeaderEpochEndHandler leader_epoch_end_;
};

}  // namespace spillway::broker
