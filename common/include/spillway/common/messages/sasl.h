// Body codecs of SaslHandshake (api key 18) and SaslAuthenticate (19),
// version 0: SASL authentication on the native protocol, as Kafka's
// SaslHandshake v1 / SaslAuthenticate. Errors (an unsupported mechanism,
// invalid credentials) are error frames, after which the broker closes the
// connection. Layouts in docs/protocol.md ("SaslHandshake",
// "SaslAuthenticate").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kSaslHandshakeVersion = 0;
inline constexpr int16_t kSaslAuthenticateVersion = 0;

// SaslHandshake: the mechanism the client wants ("PLAIN", "SCRAM-SHA-256",
// "SCRAM-SHA-512").
struct SaslHandshakeRequest {
  std::string_view mechanism;

  static constexpr auto fields() {
    return std::tuple{Field<&SaslHandshakeRequest::mechanism>{"mechanism"}};
  }
};

Result<SaslHandshakeRequest> decode_sasl_handshake_request(std::span<const std::byte> body);
Status encode_sasl_handshake_request(const SaslHandshakeRequest& request,
                                     WriteBuffer& out) noexcept;

struct SaslHandshakeResponse {
  Array<std::string_view> mechanisms;  // the ones the broker enables

  static constexpr auto fields() {
    return std::tuple{Field<&SaslHandshakeResponse::mechanisms>{"mechanisms"}};
  }
};

Result<SaslHandshakeResponse> decode_sasl_handshake_response(std::span<const std::byte> body);
Status encode_sasl_handshake_response(const SaslHandshakeResponse& response,
                                      WriteBuffer& out) noexcept;

// SaslAuthenticate: one SASL token each way.
struct SaslAuthenticateRequest {
  std::span<const std::byte> auth_bytes;

  static constexpr auto fields() {
    return std::tuple{Field<&SaslAuthenticateRequest::auth_bytes>{"auth_bytes"}};
  }
};

Result<SaslAuthenticateRequest> decode_sasl_authenticate_request(std::span<const std::byte> body);
Status encode_sasl_authenticate_request(const SaslAuthenticateRequest& request,
                                        WriteBuffer& out) noexcept;

struct SaslAuthenticateResponse {
  std::span<const std::byte> auth_bytes;

  static constexpr auto fields() {
    return std::tuple{Field<&SaslAuthenticateResponse::auth_bytes>{"auth_bytes"}};
  }
};

Result<SaslAuthenticateResponse> decode_sasl_authenticate_response(std::span<const std::byte> body);
Status encode_sasl_authenticate_response(const SaslAuthenticateResponse& response,
                                         WriteBuffer& out) noexcept;

}  // namespace spillway::messages
