#include "security_protocol.h"

#include <array>
#include <utility>

namespace spillway::broker::security {

namespace {
constexpr std::array<std::pair<SecurityProtocol, std::string_view>, 4> kNames = {{
    {SecurityProtocol::kPlaintext, "PLAINTEXT"},
    {SecurityProtocol::kSsl, "SSL"},
    {SecurityProtocol::kSaslPlaintext, "SASL_PLAINTEXT"},
    {SecurityProtocol::kSaslSsl, "SASL_SSL"},
}};
}  // namespace

std::string_view security_protocol_name(SecurityProtocol p) noexcept {
  for (const auto& [protocol, name] : kNames) {
    if (protocol == p) return name;
  }
  return "?";
}

std::optional<SecurityProtocol> parse_security_protocol(std::string_view name) noexcept {
  for (const auto& [protocol, known] : kNames) {
    if (known == name) return protocol;
  }
  return std::nullopt;
}

}  // namespace spillway::broker::security
