// SaslHandshake and SaslAuthenticate: their descriptions (messages/sasl.h)
// run both ways.
#include "spillway/common/messages/sasl.h"

namespace spillway::messages {

Result<SaslHandshakeRequest> decode_sasl_handshake_request(std::span<const std::byte> body) {
  return wire::decode<SaslHandshakeRequest>(body, kNative, "SaslHandshake request");
}
Status encode_sasl_handshake_request(const SaslHandshakeRequest& request,
                                     WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<SaslHandshakeResponse> decode_sasl_handshake_response(std::span<const std::byte> body) {
  return wire::decode<SaslHandshakeResponse>(body, kNative, "SaslHandshake response");
}
Status encode_sasl_handshake_response(const SaslHandshakeResponse& response,
                                      WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

Result<SaslAuthenticateRequest> decode_sasl_authenticate_request(std::span<const std::byte> body) {
  return wire::decode<SaslAuthenticateRequest>(body, kNative, "SaslAuthenticate request");
}
Status encode_sasl_authenticate_request(const SaslAuthenticateRequest& request,
                                        WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<SaslAuthenticateResponse> decode_sasl_authenticate_response(
    std::span<const std::byte> body) {
  return wire::decode<SaslAuthenticateResponse>(body, kNative, "SaslAuthenticate response");
}
Status encode_sasl_authenticate_response(const SaslAuthenticateResponse& response,
                                         WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
