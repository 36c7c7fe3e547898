#include "listener_list.h"

#include <string>

namespace spillway::broker {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

template <typename ParseAddress>
Result<std::vector<ListenerSpec>> parse_list(std::string_view text, ParseAddress parse_address) {
  std::vector<ListenerSpec> out;
  if (trim(text).empty()) return out;
  for (;;) {
    const size_t comma = text.find(',');
    const std::string_view entry = trim(text.substr(0, comma));
    const size_t scheme_end = entry.find("://");
    if (scheme_end == std::string_view::npos) {
      return Status(ErrorCode::kConfig, "listener \"" + std::string(entry) +
                                            "\": expected SECURITY://HOST:PORT, e.g. "
                                            "\"SASL_SSL://0.0.0.0:9094\"");
    }
    const auto security = security::parse_security_protocol(entry.substr(0, scheme_end));
    if (!security) {
      return Status(ErrorCode::kConfig,
                    "listener \"" + std::string(entry) +
                        "\": the security protocol must be PLAINTEXT, SSL, SASL_PLAINTEXT or "
                        "SASL_SSL");
    }
    Result<HostPort> address = parse_address(entry.substr(scheme_end + 3));
    if (!address.ok()) {
      return Status(ErrorCode::kConfig, "listener \"" + std::string(entry) +
                                            "\": " + std::string(address.status().message()));
    }
    out.push_back(ListenerSpec{*security, std::move(address).value()});
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

Result<std::vector<ListenerSpec>> parse_listener_list(std::string_view text) {
  return parse_list(text, parse_host_port);
}

Result<std::vector<ListenerSpec>> parse_advertised_list(std::string_view text) {
  return parse_list(text, parse_advertised_address);
}

Result<std::vector<PlannedListener>> plan_listeners(const BrokerConfig& config) {
  std::vector<PlannedListener> out;
  Result<HostPort> native = parse_host_port(config.listen);
  if (!native.ok()) return native.status();
  out.push_back({.kafka = false, .spec = {.address = *native}, .advertised = {}, .name = "native"});
  if (!config.kafka_listen.empty()) {
    Result<HostPort> kafka = parse_host_port(config.kafka_listen);
    if (!kafka.ok()) return kafka.status();
    std::optional<HostPort> advertised;
    if (!config.kafka_advertised_listener.empty()) {
      Result<HostPort> a = parse_advertised_address(config.kafka_advertised_listener);
      if (!a.ok()) return a.status();
      advertised = *a;
    }
    out.push_back(
        {.kafka = true, .spec = {.address = *kafka}, .advertised = advertised, .name = "kafka"});
  }
  Result<std::vector<ListenerSpec>> natives = parse_listener_list(config.listeners);
  if (!natives.ok()) return natives.status();
  for (ListenerSpec& spec : *natives) {
    const std::string name =
        "native " + std::string(security::security_protocol_name(spec.security));
    out.push_back({.kafka = false, .spec = std::move(spec), .advertised = {}, .name = name});
  }
  Result<std::vector<ListenerSpec>> kafkas = parse_listener_list(config.kafka_listeners);
  if (!kafkas.ok()) return kafkas.status();
  Result<std::vector<ListenerSpec>> advertised =
      parse_advertised_list(config.kafka_advertised_listeners);
  if (!advertised.ok()) return advertised.status();
  if (!advertised->empty() && advertised->size() != kafkas->size()) {
    return Status(ErrorCode::kConfig,
                  "[kafka] advertised_listeners has " + std::to_string(advertised->size()) +
                      " entries and [kafka] listeners " + std::to_string(kafkas->size()) +
                      ": give one advertised address per listener, in the same order");
  }
  for (size_t i = 0; i < kafkas->size(); ++i) {
    ListenerSpec& spec = (*kafkas)[i];
    std::optional<HostPort> a;
    if (!advertised->empty()) {
      if ((*advertised)[i].security != spec.security) {
        return Status(ErrorCode::kConfig,
                      "[kafka] advertised_listeners entry " + std::to_string(i + 1) + " is " +
                          std::string(security_protocol_name((*advertised)[i].security)) +
                          " but listener " + std::to_string(i + 1) + " is " +
                          std::string(security_protocol_name(spec.security)));
      }
      a = (*advertised)[i].address;
    }
    const std::string name =
        "kafka " + std::string(security::security_protocol_name(spec.security));
    out.push_back({.kafka = true, .spec = std::move(spec), .advertised = a, .name = name});
  }
  return out;
}

}  // namespace spillway::broker
