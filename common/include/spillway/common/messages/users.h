// Body codecs of ListUsers (api key 23), UpsertUser (24) and DeleteUser
// (25), version 0: the SCRAM credentials SASL checks (`spillway user`,
// spillway::Admin). The client derives the salt and keys from the password;
// the password itself never reaches the broker. Layouts in docs/protocol.md
// ("ListUsers", "UpsertUser", "DeleteUser").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kListUsersVersion = 0;
inline constexpr int16_t kUpsertUserVersion = 0;
inline constexpr int16_t kDeleteUserVersion = 0;

// ListUsers: every user with a credential. No fields.
struct ListUsersRequest {
  static constexpr auto fields() { return std::tuple{}; }
};

struct ListedUser {
  std::string_view user;
  std::string_view mechanism;  // "SCRAM-SHA-256" or "SCRAM-SHA-512"
  int32_t iterations = 0;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ListedUser::user>{"user"},
        Field<&ListedUser::mechanism>{"mechanism"},
        Field<&ListedUser::iterations>{"iterations"},
    };
  }
};

struct ListUsersResponse {
  Array<ListedUser> users;  // by user, then mechanism

  static constexpr auto fields() { return std::tuple{Field<&ListUsersResponse::users>{"users"}}; }
};

Result<ListUsersRequest> decode_list_users_request(std::span<const std::byte> body);
Status encode_list_users_request(const ListUsersRequest& request, WriteBuffer& out) noexcept;
Result<ListUsersResponse> decode_list_users_response(std::span<const std::byte> body);
Status encode_list_users_response(const ListUsersResponse& response, WriteBuffer& out) noexcept;

// UpsertUser: adds or replaces one user's credential for one mechanism.
// The response has no fields.
struct UpsertUserRequest {
  std::string_view user;
  std::string_view mechanism;
  int32_t iterations = 0;
  std::span<const std::byte> salt;
  std::span<const std::byte> stored_key;
  std::span<const std::byte> server_key;

  static constexpr auto fields() {
    return std::tuple{
        Field<&UpsertUserRequest::user>{"user"},
        Field<&UpsertUserRequest::mechanism>{"mechanism"},
        Field<&UpsertUserRequest::iterations>{"iterations"},
        Field<&UpsertUserRequest::salt>{"salt"},
        Field<&UpsertUserRequest::stored_key>{"stored_key"},
        Field<&UpsertUserRequest::server_key>{"server_key"},
    };
  }
};

struct EmptyUserResponse {
  static constexpr auto fields() { return std::tuple{}; }
};

Result<UpsertUserRequest> decode_upsert_user_request(std::span<const std::byte> body);
Status encode_upsert_user_request(const UpsertUserRequest& request, WriteBuffer& out) noexcept;

// DeleteUser: removes a user's credential for one mechanism, or for every
// mechanism when `mechanism` is empty. The response has no fields.
struct DeleteUserRequest {
  std::string_view user;
  std::string_view mechanism;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DeleteUserRequest::user>{"user"},
        Field<&DeleteUserRequest::mechanism>{"mechanism"},
    };
  }
};

Result<DeleteUserRequest> decode_delete_user_request(std::span<const std::byte> body);
Status encode_delete_user_request(const DeleteUserRequest& request, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
