// Kafka's SASL requests: decode, ask the SaslAuthenticator, answer.
#include "sasl_handlers.h"

#include <string>
#include <vector>

#include "codec.h"
#include "error_map.h"
#include "security/sasl/sasl_authenticator.h"
#include "spillway/common/kafka/sasl_authenticate.h"
#include "spillway/common/kafka/sasl_handshake.h"

namespace spillway::broker::kafka_listener {

void SaslHandshakeHandler::handle(Exchange& exchange) {
  using Request = kafka::SaslHandshakeRequest;
  using Response = kafka::SaslHandshakeResponse;
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  security::SaslAuthenticator* sasl = context_.broker.sasl;
  security::ConnectionSecurity* connection = exchange.security();
  std::vector<std::string_view> names;
  Status st;
  if (sasl == nullptr || connection == nullptr) {
    st = Status(ErrorCode::kIllegalSaslState, "this listener does not use SASL");
  } else {
    for (const std::string& n : sasl->mechanism_names()) names.push_back(n);
    st = sasl->handshake(*connection, request->mechanism);
  }
  if (st.ok() && exchange.header().api_version == 0) {
    // v0 would be followed by raw SASL tokens outside Kafka's framing.
    st = Status(ErrorCode::kIllegalSaslState,
                "SaslHandshake v0 is not supported: use v1 (SaslAuthenticate)");
    connection->sasl.reset();
  }
  Response response;
  response.mechanisms = std::span<const std::string_view>(names);
  if (!st.ok()) {
    response.error_code = kafka_error(st.code());
    exchange.close_after_response();
  }
  respond(exchange, response);
}

void SaslAuthenticateHandler::handle(Exchange& exchange) {
  using Request = kafka::SaslAuthenticateRequest;
  using Response = kafka::SaslAuthenticateResponse;
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  security::SaslAuthenticator* sasl = context_.broker.sasl;
  security::ConnectionSecurity* connection = exchange.security();
  security::SaslAuthenticator::Outcome outcome;
  if (sasl == nullptr || connection == nullptr) {
    outcome.status = Status(ErrorCode::kIllegalSaslState, "this listener does not use SASL");
  } else {
    outcome = sasl->authenticate(*connection, request->auth_bytes);
  }
  Response response;
  if (!outcome.status.ok()) {
    response.error_code = kafka_error(outcome.status.code());
    response.error_message = outcome.status.message();
    exchange.close_after_response();
  } else {
    response.auth_bytes =
        std::as_bytes(std::span(outcome.response.data(), outcome.response.size()));
  }
  respond(exchange, response);
}

}  // namespace spillway::broker::kafka_listener
