// DescribeCluster: one snapshot, encoded as it is. An administrative
// request, so the views are built in vectors per request.
#include "describe_cluster_handler.h"

#include <vector>

#include "cluster/cluster_member.h"
#include "handlers/access.h"
#include "spillway/common/messages/replication.h"

namespace spillway::broker {

void DescribeClusterHandler::handle(Exchange& exchange) {
  Result<messages::DescribeClusterRequest> request =
      messages::decode_describe_cluster_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_cluster(context_, exchange, security::AclOperation::kDescribe)) {
    exchange.finish(Status(ErrorCode::kClusterAuthorizationFailed,
                           "not authorized to describe the cluster (needs Describe on it)"));
    return;
  }
  if (context_.cluster == nullptr) {
    exchange.finish(Status(ErrorCode::kInvalidArgument, "not a cluster"));
    return;
  }
  const cluster::SnapshotPtr snapshot = context_.cluster->snapshot();
  if (snapshot == nullptr) {
    exchange.finish(Status(ErrorCode::kInvalidArgument, "not a cluster (not registered yet)"));
    return;
  }
  std::vector<messages::ClusterBrokerBody> brokers;
  brokers.reserve(snapshot->brokers.size());
  for (const auto& [id, b] : snapshot->brokers) {
    brokers.push_back({.id = id,
                       .native_address = b.native_address,
                       .kafka_address = b.kafka_address,
                       .rack = b.rack,
                       .epoch = b.epoch});
  }
  // Partitions of every topic, in one vector the topics view slices of.
  static const std::vector<BrokerId> kNone;
  std::vector<messages::ClusterPartitionBody> partitions;
  std::vector<size_t> first;
  for (const auto& [name, topic] : snapshot->topics) {
    first.push_back(partitions.size());
    for (size_t p = 0; p < topic.replicas.size(); ++p) {
      const cluster::PartitionState* state = snapshot->partition(name, static_cast<int32_t>(p));
      messages::ClusterPartitionBody body{.partition = static_cast<int32_t>(p),
                                          .replicas = topic.replicas[p]};
      if (state != nullptr) {
        body.leader = state->leader;
        body.leader_epoch = state->leader_epoch;
        body.isr = state->isr;
      } else {
        body.isr = kNone;
      }
      // A leader that is not a live broker is as good as none.
      body.offline = body.leader == kNoBroker || !snapshot->brokers.contains(body.leader);
      partitions.push_back(body);
    }
  }
  first.push_back(partitions.size());
  std::vector<messages::ClusterTopicBody> topics;
  topics.reserve(snapshot->topics.size());
  size_t t = 0;
  for (const auto& [name, topic] : snapshot->topics) {
    topics.push_back(
        {.name = name,
         .partitions = std::span<const messages::ClusterPartitionBody>(partitions).subspan(
             first[t], first[t + 1] - first[t])});
    ++t;
  }
  const messages::DescribeClusterResponse response{.controller_id = snapshot->controller,
                                                   .controller_epoch = snapshot->controller_epoch,
                                                   .brokers = brokers,
                                                   .topics = topics};
  exchange.finish(messages::encode_describe_cluster_response(response, exchange.out()));
}

}  // namespace spillway::broker
