// Channel::authenticate(): the client side of SASL PLAIN and SCRAM on the
// native protocol (SaslHandshake, then SaslAuthenticate once for PLAIN and
// twice for SCRAM). Runs on every connect(), so reconnects authenticate
// again.
#include <string>

#include "channel.h"
#include "spillway/common/messages/sasl.h"
#include "spillway/common/scram.h"

namespace spillway::wire {

namespace {

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

}  // namespace

Status Channel::authenticate() {
  const SaslOptions& sasl = options_.security.sasl;
  if (sasl.username.empty()) {
    return Status(ErrorCode::kInvalidArgument, "SASL needs a user name (--username)");
  }
  std::optional<scram::Mechanism> scram_mechanism = scram::parse_mechanism(sasl.mechanism);
  if (sasl.mechanism != "PLAIN" && !scram_mechanism) {
    return Status(ErrorCode::kInvalidArgument, "unknown SASL mechanism \"" + sasl.mechanism +
                                                   "\" (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)");
  }
  Result<std::vector<std::byte>> handshake =
      call(frame::ApiKey::kSaslHandshake, messages::kSaslHandshakeVersion, [&](WriteBuffer& out) {
        return messages::encode_sasl_handshake_request({.mechanism = sasl.mechanism}, out);
      });
  if (!handshake.ok()) return handshake.status();
  // One token each way; the broker's error (wrong credentials) comes back
  // as an error frame: call() turns it into a Status with its message.
  auto step = [&](std::string_view token) -> Result<std::string> {
    Result<std::vector<std::byte>> body = call(
        frame::ApiKey::kSaslAuthenticate, messages::kSaslAuthenticateVersion,
        [&](WriteBuffer& out) {
          return messages::encode_sasl_authenticate_request({.auth_bytes = bytes_of(token)}, out);
        });
    if (!body.ok()) return body.status();
    Result<messages::SaslAuthenticateResponse> response =
        messages::decode_sasl_authenticate_response(*body);
    if (!response.ok()) return response.status();
    return std::string(reinterpret_cast<const char*>(response->auth_bytes.data()),
                       response->auth_bytes.size());
  };
  if (!scram_mechanism) {
    std::string token;
    token.reserve(sasl.username.size() + sasl.password.size() + 2);
    token += '\0';
    token += sasl.username;
    token += '\0';
    token += sasl.password;
    return step(token).status();
  }
  scram::ScramClient client(*scram_mechanism, sasl.username, sasl.password);
  Result<std::string> server_first = step(client.first());
  if (!server_first.ok()) return server_first.status();
  Result<std::string> client_final = client.final(*server_first);
  if (!client_final.ok())
    return fail(client_final.status().code(), client_final.status().message());
  Result<std::string> server_final = step(*client_final);
  if (!server_final.ok()) return server_final.status();
  if (Status st = client.verify(*server_final); !st.ok()) return fail(st.code(), st.message());
  return Status::Ok();
}

}  // namespace spillway::wire
