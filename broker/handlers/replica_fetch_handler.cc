// ReplicaFetch: the native request and response around the shared fetch
// core in replica mode (fetch_core.h).
#include "replica_fetch_handler.h"

#include <algorithm>
#include <vector>

#include "cluster/cluster_member.h"
#include "cluster/reassignment.h"
#include "fetch_core.h"
#include "handlers/access.h"
#include "replication/replication_throttle.h"
#include "spillway/common/messages/replication.h"

namespace spillway::broker {

namespace {

struct ReplicaFetchState final : FetchCore {
  std::vector<messages::ReplicaFetchPartitionResult> results;
  std::vector<messages::ReplicaFetchTopicResult> topic_results;
};

Status encode_replica_fetch(FetchCore& core) {
  auto& st = static_cast<ReplicaFetchState&>(core);
  const std::vector<FetchCore::Part>& parts = st.parts();
  st.results.clear();
  st.topic_results.clear();
  for (const FetchCore::Part& part : parts) {
    st.results.push_back(
        {.partition = part.partition,
         .error_code = part.code,
         .error_message = part.message,
         .high_watermark = part.high_watermark,
         .log_start_offset = part.log_start_offset,
         .leader_epoch = part.leader_epoch,
         .records = part.include ? FetchCore::records(part) : messages::Records{}});
  }
  size_t p = 0;
  for (uint32_t t = 0; t < st.topic_count(); ++t) {
    size_t end = p;
    while (end < parts.size() && parts[end].topic == t) ++end;
    st.topic_results.push_back(
        {.name = st.topic_name(t),
         .results = std::span<const messages::ReplicaFetchPartitionResult>(st.results).subspan(
             p, end - p)});
    p = end;
  }
  return messages::encode_replica_fetch_response({st.topic_results}, st.exchange().out());
}

// Whether `replica` is in the assignment of `topic`'s partition `p` in the
// cluster's latest snapshot. Without a cluster (in-process tests) the
// partition itself decides (replica_read refuses a broker it does not know).
bool is_replica(const cluster::ClusterSnapshot* snapshot, std::string_view topic, int32_t p,
                BrokerId replica) {
  if (snapshot == nullptr) return true;
  auto t = snapshot->topics.find(topic);
  if (t == snapshot->topics.end() || p < 0 ||
      static_cast<size_t>(p) >= t->second.replicas.size()) {
    return false;
  }
  const std::vector<BrokerId>& replicas = t->second.replicas[static_cast<size_t>(p)];
  return std::find(replicas.begin(), replicas.end(), replica) != replicas.end();
}

// Whether `replica`'s fetch of the partition is reassignment traffic under
// the throttle: a move with a throttle adds it and it is not in sync yet.
bool throttled(const BrokerContext& context, const cluster::ClusterSnapshot* snapshot,
               std::string_view topic, int32_t p, BrokerId replica) {
  return snapshot != nullptr && context.replication_throttle != nullptr &&
         context.replication_throttle->rate() > 0 &&
         cluster::reassignment_throttle(*snapshot, topic, p, replica) > 0;
}

}  // namespace

void ReplicaFetchHandler::handle(Exchange& exchange) {
  Result<messages::ReplicaFetchRequest> request =
      messages::decode_replica_fetch_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_cluster(context_, exchange, security::AclOperation::kClusterAction)) {
    exchange.finish(Status(ErrorCode::kClusterAuthorizationFailed,
                           "not authorized to replicate (needs ClusterAction on the cluster)"));
    return;
  }
  if (request->replica_id < 0) {
    exchange.finish(Status(ErrorCode::kInvalidArgument, "a replica fetch needs a broker id"));
    return;
  }
  // Held for the request: one snapshot answers every partition alike.
  const cluster::SnapshotPtr snapshot =
      context_.cluster != nullptr ? context_.cluster->snapshot() : nullptr;
  ReplicaFetchState& st = exchange.state<ReplicaFetchState>(Exchange::kReplicaFetchState);
  st.begin(exchange, &encode_replica_fetch, request->max_wait_ms, request->min_bytes,
           request->max_bytes);
  st.set_replica(request->replica_id, request->broker_epoch,
                 [](Partition& partition, const replication::ReplicaReadRequest& read, Reply reply) {
                   partition.replica_read(read, std::move(reply));
                 });
  for (const messages::ReplicaFetchTopicRequest& t : request->topics) {
    const uint32_t topic = st.add_topic(context_.topics, t.name);
    for (const messages::ReplicaFetchPartitionRequest& p : t.partitions) {
      if (!is_replica(snapshot.get(), t.name, p.partition, request->replica_id)) {
        st.add_refused_partition(topic, p.partition, ErrorCode::kNotLeaderOrFollower,
                                 "broker " + std::to_string(request->replica_id) +
                                     " is not a replica of the partition");
        continue;
      }
      st.add_partition(topic, p.partition, p.fetch_offset, p.max_bytes, p.current_leader_epoch);
      if (throttled(context_, snapshot.get(), t.name, p.partition, request->replica_id)) {
        st.throttle_last_partition(context_.replication_throttle);
      }
    }
  }
  st.start();
}

}  // namespace spillway::broker
