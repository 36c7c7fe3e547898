// Registration of the replication handlers, with the versions their
// codecs name.
#include "replication_handlers.h"

#include "spillway/common/messages/replication.h"

namespace spillway::broker {

ReplicationHandlers::ReplicationHandlers(Dispatcher& dispatcher, BrokerContext& context)
    : replica_fetch_(context), leader_epoch_end_(context) {
  using namespace messages;
  using frame::ApiKey;
  dispatcher.add(ApiKey::kReplicaFetch, kReplicaFetchVersion, kReplicaFetchVersion,
                 &replica_fetch_);
  dispatcher.add(ApiKey::kLeaderEpochEnd, kLeaderEpochEndVersion, kLeaderEpochEndVersion,
                 &leader_epoch_end_);
}

}  // namespace spillway::broker
