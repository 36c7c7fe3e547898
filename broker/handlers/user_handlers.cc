// The user handlers: authorize, then read or change the CredentialStore.
// Changes write the credential file (an fsync) on the connection's thread:
// they are rare administrative calls.
#include "user_handlers.h"

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

#include "security/authorizer.h"
#include "security/sasl/sasl_authenticator.h"
#include "spillway/common/messages/users.h"

namespace spillway::broker {

namespace {

// Ok when the principal may do `operation` on the cluster and the broker
// has a credential store.
Status check(const BrokerContext& context, const Exchange& exchange,
             security::AclOperation operation) {
  if (!security::authorized(context.authorizer, exchange.security(), operation,
                            security::ResourceType::kCluster, security::kClusterResourceName)) {
    return Status(ErrorCode::kClusterAuthorizationFailed,
                  std::string("not authorized to ") +
                      (operation == security::AclOperation::kAlter ? "change" : "list") +
                      " users (needs " +
                      (operation == security::AclOperation::kAlter ? "Alter" : "Describe") +
                      " on the cluster)");
  }
  if (context.sasl == nullptr) {
    return Status(ErrorCode::kSecurityDisabled, "this broker has no SASL credential store");
  }
  return Status::Ok();
}

std::string who(const Exchange& exchange) {
  const security::ConnectionSecurity* s = exchange.security();
  return s == nullptr ? std::string("?") : s->principal + " from " + s->host;
}

std::string_view text_of(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

}  // namespace

void ListUsersHandler::handle(Exchange& exchange) {
  Result<messages::ListUsersRequest> request = messages::decode_list_users_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (Status st = check(context_, exchange, security::AclOperation::kDescribe); !st.ok()) {
    exchange.finish(st);
    return;
  }
  const std::vector<scram::UserCredential> all = context_.sasl->store().list();
  std::vector<messages::ListedUser> users;
  users.reserve(all.size());
  for (const scram::UserCredential& u : all) {
    users.push_back({.user = u.user,
                     .mechanism = scram::mechanism_name(u.credential.mechanism),
                     .iterations = static_cast<int32_t>(u.credential.iterations)});
  }
  exchange.finish(messages::encode_list_users_response({users}, exchange.out()));
}

void UpsertUserHandler::handle(Exchange& exchange) {
  Result<messages::UpsertUserRequest> request =
      messages::decode_upsert_user_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (Status st = check(context_, exchange, security::AclOperation::kAlter); !st.ok()) {
    exchange.finish(st);
    return;
  }
  const std::optional<scram::Mechanism> mechanism = scram::parse_mechanism(request->mechanism);
  if (!mechanism) {
    exchange.finish(
        Status(ErrorCode::kInvalidArgument, "mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512"));
    return;
  }
  if (request->iterations < 0) {
    exchange.finish(Status(ErrorCode::kInvalidArgument, "negative iterations"));
    return;
  }
  scram::UserCredential credential{
      .user = std::string(request->user),
      .credential = {.mechanism = *mechanism,
                     .salt = std::string(text_of(request->salt)),
                     .iterations = static_cast<uint32_t>(request->iterations),
                     .stored_key = std::string(text_of(request->stored_key)),
                     .server_key = std::string(text_of(request->server_key))}};
  Status st = context_.sasl->store().upsert(credential);
  if (st.ok()) {
    spdlog::info("user \"{}\": {} credential set by {}", credential.user, request->mechanism,
                 who(exchange));
  }
  exchange.finish(st);
}

void DeleteUserHandler::handle(Exchange& exchange) {
  Result<messages::DeleteUserRequest> request =
      messages::decode_delete_user_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (Status st = check(context_, exchange, security::AclOperation::kAlter); !st.ok()) {
    exchange.finish(st);
    return;
  }
  std::optional<scram::Mechanism> mechanism;
  if (!request->mechanism.empty()) {
    mechanism = scram::parse_mechanism(request->mechanism);
    if (!mechanism) {
      exchange.finish(Status(ErrorCode::kInvalidArgument,
                             "mechanism must be SCRAM-SHA-256, SCRAM-SHA-512 or empty (all)"));
      return;
    }
  }
  Status st = context_.sasl->store().remove(request->user, mechanism);
  if (st.ok()) {
    spdlog::info("user \"{}\": {} credential(s) deleted by {}", request->user,
                 request->mechanism.empty() ? std::string_view("all") : request->mechanism,
                 who(exchange));
  }
  exchange.finish(st);
}

}  // namespace spillway::broker
