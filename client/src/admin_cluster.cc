// Admin::describe_cluster: native DescribeCluster (key 28).
#include "channel.h"
#include "spillway/admin.h"
#include "spillway/common/messages/replication.h"

namespace spillway {

Result<ClusterDescription> Admin::describe_cluster() {
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(
              frame::ApiKey::kDescribeCluster, messages::kDescribeClusterVersion,
              [&](WriteBuffer& out) { return messages::encode_describe_cluster_request({}, out); });
  if (!body.ok()) return body.status();
  Result<messages::DescribeClusterResponse> decoded =
      messages::decode_describe_cluster_response(*body);
  if (!decoded.ok()) return decoded.status();
  ClusterDescription out;
  out.controller_id = decoded->controller_id;
  out.controller_epoch = decoded->controller_epoch;
  for (const messages::ClusterBrokerBody& b : decoded->brokers) {
    out.brokers.push_back({.id = b.id,
                           .native_address = std::string(b.native_address),
                           .kafka_address = std::string(b.kafka_address),
                           .rack = std::string(b.rack),
                           .epoch = b.epoch});
  }
  for (const messages::ClusterTopicBody& t : decoded->topics) {
    for (const messages::ClusterPartitionBody& p : t.partitions) {
      ClusterPartition part;
      part.topic = std::string(t.name);
      part.partition = p.partition;
      part.leader = p.leader;
      part.leader_epoch = p.leader_epoch;
      for (int32_t id : p.replicas) part.replicas.push_back(id);
      for (int32_t id : p.isr) part.isr.push_back(id);
      part.offline = p.offline;
      out.partitions.push_back(std::move(part));
    }
  }
  return out;
}

}  // namespace spillway
