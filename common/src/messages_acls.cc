// DescribeAcls, CreateAcls and DeleteAcls: their descriptions
// (messages/acls.h) run both ways.
#include "spillway/common/messages/acls.h"

namespace spillway::messages {

Result<DescribeAclsRequest> decode_describe_acls_request(std::span<const std::byte> body) {
  return wire::decode<DescribeAclsRequest>(body, kNative, "DescribeAcls request");
}
Status encode_describe_acls_request(const DescribeAclsRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<DescribeAclsResponse> decode_describe_acls_response(std::span<const std::byte> body) {
  return wire::decode<DescribeAclsResponse>(body, kNative, "DescribeAcls response");
}
Status encode_describe_acls_response(const DescribeAclsResponse& response,
                                     WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<CreateAclsRequest> decode_create_acls_request(std::span<const std::byte> body) {
  return wire::decode<CreateAclsRequest>(body, kNative, "CreateAcls request");
}
Status encode_create_acls_request(const CreateAclsRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<CreateAclsResponse> decode_create_acls_response(std::span<const std::byte> body) {
  return wire::decode<CreateAclsResponse>(body, kNative, "CreateAcls response");
}
Status encode_create_acls_response(const CreateAclsResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<DeleteAclsRequest> decode_delete_acls_request(std::span<const std::byte> body) {
  return wire::decode<DeleteAclsRequest>(body, kNative, "DeleteAcls request");
}
Status encode_delete_acls_request(const DeleteAclsRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<DeleteAclsResponse> decode_delete_acls_response(std::span<const std::byte> body) {
  return wire::decode<DeleteAclsResponse>(body, kNative, "DeleteAcls response");
}
Status encode_delete_acls_response(const DeleteAclsResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
