// Parsing of "host:port" settings (listen, metrics_listen, advertised addresses).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "spillway/common/status.h"

namespace spillway::broker {

struct HostPort {
  std::string host;   // an IPv4 or IPv6 literal, without brackets
  uint16_t port = 0;  // 0 = let the kernel pick a free port
};

// Accepts "1.2.3.4:9092" and "[::1]:9092"; the host must be an IP literal so
// a typo cannot make the broker bind somewhere unexpected after a DNS lookup.
// Error (kConfig) says what was expected.
Result<HostPort> parse_host_port(std::string_view text);

// Where clients are told to connect: "HOST:PORT" with a host name or an IP
// literal ("[::1]:9092" for IPv6) and a port in [1, 65535]. It is only ever
// sent to clients, never bound or looked up here. Error (kConfig).
Result<HostPort> parse_advertised_address(std::string_view text);

}  // namespace spillway::broker
