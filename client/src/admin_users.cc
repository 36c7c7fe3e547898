// Admin's user calls: ListUsers, UpsertUser and DeleteUser
// (docs/protocol.md). The credential is derived here from the password.
#include <string>

#include "channel.h"
#include "spillway/admin.h"
#include "spillway/common/credential_file.h"
#include "spillway/common/messages/users.h"
#include "spillway/common/scram.h"

namespace spillway {

namespace {

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

}  // namespace

Result<std::vector<UserListing>> Admin::list_users() {
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(frame::ApiKey::kListUsers, messages::kListUsersVersion,
                [&](WriteBuffer& out) { return messages::encode_list_users_request({}, out); });
  if (!body.ok()) return body.status();
  Result<messages::ListUsersResponse> decoded = messages::decode_list_users_response(*body);
  if (!decoded.ok()) return decoded.status();
  std::vector<UserListing> users;
  for (const messages::ListedUser& u : decoded->users) {
    users.push_back({std::string(u.user), std::string(u.mechanism), u.iterations});
  }
  return users;
}

Status Admin::upsert_user(std::string_view user, std::string_view mechanism,
                          std::string_view password, int32_t iterations) {
  SPILLWAY_RETURN_IF_ERROR(scram::check_user_name(user));
  const std::optional<scram::Mechanism> m = scram::parse_mechanism(mechanism);
  if (!m) {
    return Status(ErrorCode::kInvalidArgument, "mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512");
  }
  if (iterations < static_cast<int32_t>(scram::kMinIterations) ||
      iterations > static_cast<int32_t>(scram::kMaxIterations)) {
    return Status(ErrorCode::kInvalidArgument, "iterations must be between " +
                                                   std::to_string(scram::kMinIterations) + " and " +
                                                   std::to_string(scram::kMaxIterations));
  }
  if (password.empty()) return Status(ErrorCode::kInvalidArgument, "the password is empty");
  const scram::Credential c = scram::make_credential(
      *m, password, scram::random_bytes(scram::kSaltBytes), static_cast<uint32_t>(iterations));
  const messages::UpsertUserRequest request{.user = user,
                                            .mechanism = mechanism,
                                            .iterations = iterations,
                                            .salt = bytes_of(c.salt),
                                            .stored_key = bytes_of(c.stored_key),
                                            .server_key = bytes_of(c.server_key)};
  return wire::channel_of(connection_)
      .call(frame::ApiKey::kUpsertUser, messages::kUpsertUserVersion,
            [&](WriteBuffer& out) { return messages::encode_upsert_user_request(request, out); })
      .status();
}

Status Admin::delete_user(std::string_view user, std::string_view mechanism) {
  const messages::DeleteUserRequest request{.user = user, .mechanism = mechanism};
  return wire::channel_of(connection_)
      .call(frame::ApiKey::kDeleteUser, messages::kDeleteUserVersion,
            [&](WriteBuffer& out) { return messages::encode_delete_user_request(request, out); })
      .status();
}

}  // namespace spillway
