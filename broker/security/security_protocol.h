// A listener's security protocol, in Kafka's names: whether its connections
// speak TLS, and whether they must authenticate with SASL before anything
// else. docs/security.md shows each in use.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace spillway::broker::security {

enum class SecurityProtocol : uint8_t {
  kPlaintext,      // PLAINTEXT: no TLS, no authentication (principal User:ANONYMOUS)
  kSsl,            // SSL: TLS; with client certificates, the principal is their subject
  kSaslPlaintext,  // SASL_PLAINTEXT: SASL authentication, no TLS
  kSaslSsl,        // SASL_SSL: SASL authentication over TLS
};

constexpr bool uses_tls(SecurityProtocol p) noexcept {
  return p == SecurityProtocol::kSsl || p == SecurityProtocol::kSaslSsl;
}
constexpr bool uses_sasl(SecurityProtocol p) noexcept {
  return p == SecurityProtocol::kSaslPlaintext || p == SecurityProtocol::kSaslSsl;
}

// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL".
std::string_view security_protocol_name(SecurityProtocol p) noexcept;
// The protocol named `name` (upper case, as above); nullopt otherwise.
std::optional<SecurityProtocol> parse_security_protocol(std::string_view name) noexcept;

}  // namespace spillway::broker::security
