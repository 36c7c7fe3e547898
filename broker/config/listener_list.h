// Lists of further listeners, in Kafka's form: "SECURITY://HOST:PORT"
// entries separated by commas, e.g.
//   "SASL_SSL://0.0.0.0:9094, PLAINTEXT://127.0.0.1:9095"
// ([broker] listeners, [kafka] listeners), and the addresses clients are
// told for them ([kafka] advertised_listeners: one per listener, in the same
// order, host names allowed).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../security/security_protocol.h"
#include "broker_config.h"
#include "listen_address.h"
#include "spillway/common/status.h"

namespace spillway::broker {

struct ListenerSpec {
  security::SecurityProtocol security = security::SecurityProtocol::kPlaintext;
  HostPort address;
};

// The listeners of `text` (empty text: none). Hosts must be IP literals
// (parse_host_port). Error (kConfig) names the entry at fault.
Result<std::vector<ListenerSpec>> parse_listener_list(std::string_view text);

// The same form with host names allowed and ports in [1, 65535]
// (parse_advertised_address): the advertised addresses.
Result<std::vector<ListenerSpec>> parse_advertised_list(std::string_view text);

// Every listener the broker opens, in order: [broker] listen (the native
// PLAINTEXT listener, always first: tests and scripts read its port from the
// "listening on" line), [kafka] listen if set, then [broker] listeners, then
// [kafka] listeners.
struct PlannedListener {
  bool kafka = false;  // Kafka's protocol, else the native one
  ListenerSpec spec;
  // Kafka only: what Metadata and FindCoordinator tell clients that came in
  // on it; unset = the bound address.
  std::optional<HostPort> advertised;
  std::string name;  // for logs: "native", "kafka", "kafka SASL_SSL"
};
// Error (kConfig): a malformed list, or advertised_listeners whose entries
// do not match [kafka] listeners one for one (same count, same security).
Result<std::vector<PlannedListener>> plan_listeners(const BrokerConfig& config);

}  // namespace spillway::broker
