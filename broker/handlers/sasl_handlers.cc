// Native SASL requests: decode, ask the SaslAuthenticator, answer.
#include "sasl_handlers.h"

#include <string>
#include <vector>

#include "security/sasl/sasl_authenticator.h"
#include "spillway/common/messages/sasl.h"

namespace spillway::broker {

namespace {

// Answers `st` and closes the connection after it.
void refuse(Exchange& exchange, const Status& st) {
  exchange.close_after_response();
  exchange.finish(st);
}

}  // namespace

void NativeSaslHandshakeHandler::handle(Exchange& exchange) {
  Result<messages::SaslHandshakeRequest> request =
      messages::decode_sasl_handshake_request(exchange.body());
  if (!request.ok()) {
    refuse(exchange, request.status());
    return;
  }
  security::ConnectionSecurity* connection = exchange.security();
  if (context_.sasl == nullptr || connection == nullptr) {
    refuse(exchange, Status(ErrorCode::kIllegalSaslState, "this listener does not use SASL"));
    return;
  }
  if (Status st = context_.sasl->handshake(*connection, request->mechanism); !st.ok()) {
    refuse(exchange, st);
    return;
  }
  std::vector<std::string_view> names;
  for (const std::string& n : context_.sasl->mechanism_names()) names.push_back(n);
  exchange.finish(messages::encode_sasl_handshake_response(
      {.mechanisms = std::span<const std::string_view>(names)}, exchange.out()));
}

void NativeSaslAuthenticateHandler::handle(Exchange& exchange) {
  Result<messages::SaslAuthenticateRequest> request =
      messages::decode_sasl_authenticate_request(exchange.body());
  if (!request.ok()) {
    refuse(exchange, request.status());
    return;
  }
  security::ConnectionSecurity* connection = exchange.security();
  if (context_.sasl == nullptr || connection == nullptr) {
    refuse(exchange, Status(ErrorCode::kIllegalSaslState, "this listener does not use SASL"));
    return;
  }
  security::SaslAuthenticator::Outcome outcome =
      context_.sasl->authenticate(*connection, request->auth_bytes);
  if (!outcome.status.ok()) {
    refuse(exchange, outcome.status);
    return;
  }
  exchange.finish(messages::encode_sasl_authenticate_response(
      {.auth_bytes = std::as_bytes(std::span(outcome.response.data(), outcome.response.size()))},
      exchange.out()));
}

}  // namespace spillway::broker
