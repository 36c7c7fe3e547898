// ListGroups, DescribeGroups and DeleteGroups: their descriptions
// (messages/group_admin.h) run both ways.
#include "spillway/common/messages/group_admin.h"

namespace spillway::messages {

Result<ListGroupsRequest> decode_list_groups_request(std::span<const std::byte> body) {
  return wire::decode<ListGroupsRequest>(body, kNative, "ListGroups request");
}
Status encode_list_groups_request(const ListGroupsRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<ListGroupsResponse> decode_list_groups_response(std::span<const std::byte> body) {
  return wire::decode<ListGroupsResponse>(body, kNative, "ListGroups response");
}
Status encode_list_groups_response(const ListGroupsResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<DescribeGroupsRequest> decode_describe_groups_request(std::span<const std::byte> body) {
  return wire::decode<DescribeGroupsRequest>(body, kNative, "DescribeGroups request");
}
Status encode_describe_groups_request(const DescribeGroupsRequest& request,
                                      WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<DescribeGroupsResponse> decode_describe_groups_response(std::span<const std::byte> body) {
  return wire::decode<DescribeGroupsResponse>(body, kNative, "DescribeGroups response");
}
Status encode_describe_groups_response(const DescribeGroupsResponse& response,
                                       WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<DeleteGroupsRequest> decode_delete_groups_request(std::span<const std::byte> body) {
  return wire::decode<DeleteGroupsRequest>(body, kNative, "DeleteGroups request");
}
Status encode_delete_groups_request(const DeleteGroupsRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<DeleteGroupsResponse> decode_delete_groups_response(std::span<const std::byte> body) {
  return wire::decode<DeleteGroupsResponse>(body, kNative, "DeleteGroups response");
}
Status encode_delete_groups_response(const DeleteGroupsResponse& response,
                                     WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
