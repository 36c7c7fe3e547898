// AlterPartitionReassignments, ListPartitionReassignments: their
// descriptions (messages/reassignments.h) run both ways.
#include "spillway/common/messages/reassignments.h"

namespace spillway::messages {

Result<AlterPartitionReassignmentsRequest> decode_alter_partition_reassignments_request(
    std::span<const std::byte> body) {
  return wire::decode<AlterPartitionReassignmentsRequest>(body, kNative,
                                                          "AlterPartitionReassignments request");
}
Status encode_alter_partition_reassignments_request(
    const AlterPartitionReassignmentsRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<AlterPartitionReassignmentsResponse> decode_alter_partition_reassignments_response(
    std::span<const std::byte> body) {
  return wire::decode<AlterPartitionReassignmentsResponse>(body, kNative,
                                                           "AlterPartitionReassignments response");
}
Status encode_alter_partition_reassignments_response(
    const AlterPartitionReassignmentsResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<ListPartitionReassignmentsRequest> decode_list_partition_reassignments_request(
    std::span<const std::byte> body) {
  return wire::decode<ListPartitionReassignmentsRequest>(body, kNative,
                                                         "ListPartitionReassignments request");
}
Status encode_list_partition_reassignments_request(const ListPartitionReassignmentsRequest& request,
                                                   WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<ListPartitionReassignmentsResponse> decode_list_partition_reassignments_response(
    std::span<const std::byte> body) {
  return wire::decode<ListPartitionReassignmentsResponse>(body, kNative,
                                                          "ListPartitionReassignments response");
}
Status encode_list_partition_reassignments_response(
    const ListPartitionReassignmentsResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
