// ClusterRoutes: which broker leads each partition and where each broker
// listens, as one broker's DescribeCluster answer (native key 28) tells it.
// The Producer and the Consumer send a partition's requests to its leader
// by it (docs/replication.md, "Clients"). A standalone broker answers
// DescribeCluster with an error; then the routes are empty and everything
// goes to the bootstrap broker, as before clusters existed.
//
// The one way the client decodes DescribeCluster: Admin::describe_cluster
// uses decode_cluster_description() too.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/cluster.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::wire {

// A partition routed to the connection made to the bootstrap address (a
// standalone broker, or routes not known yet).
inline constexpr int32_t kBootstrapBroker = -1;
// A partition with no live leader: its requests wait for new routes.
inline constexpr int32_t kNoLeader = -2;

struct ClusterRoutes {
  std::map<int32_t, std::string> addresses;  // broker id -> native HOST:PORT
  // Per topic, the leader of each partition (kNoLeader: offline).
  std::map<std::string, std::vector<int32_t>, std::less<>> leaders;

  // True for a cluster's answer; false for the routes of a standalone
  // broker (everything to the bootstrap broker).
  bool cluster() const { return !addresses.empty(); }
  // The leader of `partition` of `topic`: kBootstrapBroker without a
  // cluster, kNoLeader for an offline or unknown partition or a leader
  // whose address is unknown.
  int32_t leader(std::string_view topic, int32_t partition) const;
  // The address of `broker`, or null.
  const std::string* address(int32_t broker) const;
};

// The body of a DescribeCluster request.
Status write_describe_cluster_request(WriteBuffer& out) noexcept;

// Decodes a DescribeCluster response body. kCorruptMessage if malformed.
Result<ClusterDescription> decode_cluster_description(std::span<const std::byte> body);

// The routes in a DescribeCluster answer. An error response that means
// "no cluster to route by" (kInvalidArgument from a standalone broker,
// kUnsupportedVersion from an older one, kClusterAuthorizationFailed for a
// client without Describe on the cluster) gives the routes of a standalone
// broker, which send everything to the bootstrap broker; another error is
// returned (ask again later); otherwise the decoded `body`.
// kCorruptMessage for a body that does not decode.
Result<ClusterRoutes> routes_from_answer(const Status& request_error,
                                         std::span<const std::byte> body);

// True for the errors after which a request for a partition should go to
// its leader as new routes tell (ask DescribeCluster again, then retry):
// the broker does not lead it, or the request's leader epoch is stale.
bool needs_new_routes(ErrorCode code);

}  // namespace spillway::wire
