// DescribeCluster, decoded once for Admin and for the routes the Producer
// and Consumer send by (see cluster_routes.h).
#include "cluster_routes.h"

#include "spillway/common/messages/replication.h"

namespace spillway::wire {
namespace {

// Partitions per topic a broker creates at most (broker/core/topic_config.h).
constexpr int32_t kMaxPartitionsPerTopic = 65536;

}  // namespace

int32_t ClusterRoutes::leader(std::string_view topic, int32_t partition) const {
  if (!cluster()) return kBootstrapBroker;
  auto t = leaders.find(topic);
  if (t == leaders.end() || partition < 0 ||
      static_cast<std::size_t>(partition) >= t->second.size()) {
    return kNoLeader;
  }
  const int32_t id = t->second[static_cast<std::size_t>(partition)];
  return addresses.count(id) != 0 ? id : kNoLeader;
}

const std::string* ClusterRoutes::address(int32_t broker) const {
  auto it = addresses.find(broker);
  return it == addresses.end() ? nullptr : &it->second;
}

Status write_describe_cluster_request(WriteBuffer& out) noexcept {
  return messages::encode_describe_cluster_request({}, out);
}

Result<ClusterDescription> decode_cluster_description(std::span<const std::byte> body) {
  Result<messages::DescribeClusterResponse> decoded =
      messages::decode_describe_cluster_response(body);
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

Result<ClusterRoutes> routes_from_answer(const Status& request_error,
                                         std::span<const std::byte> body) {
  ClusterRoutes routes;
  switch (request_error.code()) {
    case ErrorCode::kOk:
      break;
    case ErrorCode::kInvalidArgument:             // "not a cluster": a standalone broker
    case ErrorCode::kUnsupportedVersion:          // one older than clusters
    case ErrorCode::kClusterAuthorizationFailed:  // no Describe on the cluster
      return routes;
    default:
      return request_error;  // ask again later
  }
  Result<ClusterDescription> cluster = decode_cluster_description(body);
  if (!cluster.ok()) return cluster.status();
  for (const ClusterBroker& b : cluster->brokers) {
    if (!b.native_address.empty()) routes.addresses[b.id] = b.native_address;
  }
  for (const ClusterPartition& p : cluster->partitions) {
    // The broker's own limit on partitions per topic bounds the vector.
    if (p.partition < 0 || p.partition >= kMaxPartitionsPerTopic) continue;
    std::vector<int32_t>& leaders = routes.leaders[p.topic];
    if (leaders.size() <= static_cast<std::size_t>(p.partition)) {
      leaders.resize(static_cast<std::size_t>(p.partition) + 1, kNoLeader);
    }
    leaders[static_cast<std::size_t>(p.partition)] = p.offline ? kNoLeader : p.leader;
  }
  return routes;
}

bool needs_new_routes(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kFencedLeaderEpoch:
    case ErrorCode::kUnknownLeaderEpoch:
      return true;
    default:
      return false;
  }
}

}  // namespace spillway::wire
