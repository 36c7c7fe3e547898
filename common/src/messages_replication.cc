// ReplicaFetch, LeaderEpochEnd, DescribeCluster: their descriptions
// (messages/replication.h) run both ways.
#include "spillway/common/messages/replication.h"

namespace spillway::messages {

Result<ReplicaFetchRequest> decode_replica_fetch_request(std::span<const std::byte> body) {
  return wire::decode<ReplicaFetchRequest>(body, kNative, "ReplicaFetch request");
}
Status encode_replica_fetch_request(const ReplicaFetchRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<ReplicaFetchResponse> decode_replica_fetch_response(std::span<const std::byte> body) {
  return wire::decode<ReplicaFetchResponse>(body, kNative, "ReplicaFetch response");
}
Status encode_replica_fetch_response(const ReplicaFetchResponse& response,
                                     WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<LeaderEpochEndRequest> decode_leader_epoch_end_request(std::span<const std::byte> body) {
  return wire::decode<LeaderEpochEndRequest>(body, kNative, "LeaderEpochEnd request");
}
Status encode_leader_epoch_end_request(const LeaderEpochEndRequest& request,
                                       WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<LeaderEpochEndResponse> decode_leader_epoch_end_response(std::span<const std::byte> body) {
  return wire::decode<LeaderEpochEndResponse>(body, kNative, "LeaderEpochEnd response");
}
Status encode_leader_epoch_end_response(const LeaderEpochEndResponse& response,
                                        WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<DescribeClusterRequest> decode_describe_cluster_request(std::span<const std::byte> body) {
  return wire::decode<DescribeClusterRequest>(body, kNative, "DescribeCluster request");
}
Status encode_describe_cluster_request(const DescribeClusterRequest& request,
                                       WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<DescribeClusterResponse> decode_describe_cluster_response(std::span<const std::byte> body) {
  return wire::decode<DescribeClusterResponse>(body, kNative, "DescribeCluster response");
}
Status encode_describe_cluster_response(const DescribeClusterResponse& response,
                                        WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
