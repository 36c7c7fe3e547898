// Admin::describe_cluster: native DescribeCluster (key 28).
#include "channel.h"
#include "cluster_routes.h"
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
  return wire::decode_cluster_description(*body);
}

}  // namespace spillway
