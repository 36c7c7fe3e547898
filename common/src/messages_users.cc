// ListUsers, UpsertUser and DeleteUser: their descriptions
// (messages/users.h) run both ways.
#include "spillway/common/messages/users.h"

namespace spillway::messages {

Result<ListUsersRequest> decode_list_users_request(std::span<const std::byte> body) {
  return wire::decode<ListUsersRequest>(body, kNative, "ListUsers request");
}
Status encode_list_users_request(const ListUsersRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<ListUsersResponse> decode_list_users_response(std::span<const std::byte> body) {
  return wire::decode<ListUsersResponse>(body, kNative, "ListUsers response");
}
Status encode_list_users_response(const ListUsersResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<UpsertUserRequest> decode_upsert_user_request(std::span<const std::byte> body) {
  return wire::decode<UpsertUserRequest>(body, kNative, "UpsertUser request");
}
Status encode_upsert_user_request(const UpsertUserRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}

Result<DeleteUserRequest> decode_delete_user_request(std::span<const std::byte> body) {
  return wire::decode<DeleteUserRequest>(body, kNative, "DeleteUser request");
}
Status encode_delete_user_request(const DeleteUserRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}

}  // namespace spillway::messages
