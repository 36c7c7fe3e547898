// [sasl] -> SaslSettings.
#include "config/sasl_settings.h"

#include <algorithm>

namespace spillway::broker {

Result<security::SaslSettings> sasl_settings(const BrokerConfig& config) {
  security::SaslSettings settings;
  std::string_view rest = config.sasl_mechanisms;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    const std::optional<security::SaslMechanism> mechanism = security::parse_sasl_mechanism(name);
    if (!mechanism) {
      return Status(ErrorCode::kConfig, "sasl.mechanisms: unknown mechanism \"" +
                                            std::string(name) +
                                            "\" (expected PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)");
    }
    if (std::find(settings.mechanisms.begin(), settings.mechanisms.end(), *mechanism) !=
        settings.mechanisms.end()) {
      return Status(ErrorCode::kConfig,
                    "sasl.mechanisms: \"" + std::string(name) + "\" is named twice");
    }
    settings.mechanisms.push_back(*mechanism);
  }
  if (settings.mechanisms.empty()) {
    return Status(ErrorCode::kConfig, "sasl.mechanisms: no mechanism");
  }
  settings.max_failures_per_minute = static_cast<uint32_t>(config.sasl_max_failed_authentications);
  settings.max_token_bytes = static_cast<size_t>(config.sasl_max_token_bytes);
  return settings;
}

}  // namespace spillway::broker
