// Kafka's OffsetCommit (key 8, v2-8): a group's offsets, stored in the
// broker's OffsetStore, so the native FetchOffsets sees them and the other
// way round. The group coordinator decides whether the member may commit
// (GroupCoordinator::check_commit): a member of the group's current
// generation, or a "simple" commit (generation -1, no member id: a consumer
// that uses assign()) while the group has no members; otherwise
// ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS or
// FENCED_INSTANCE_ID for every partition. Committed metadata strings are not
// stored (OffsetFetch returns ""). The commit is made durable on the core's
// sync thread before the answer, as the native commit is; in a cluster it
// is stored in etcd first (cluster/cluster_offsets.h).
#pragma once

#include <asio/any_io_executor.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/offset_store.h"
#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class OffsetCommitHandler final : public Handler {
 public:
  explicit OffsetCommitHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  // Stores a commit the coordinator allowed (in etcd first in a cluster).
  void store(std::string group, std::vector<OffsetStore::Entry> entries,
             asio::any_io_executor executor, std::function<void(Status)> done);

  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
