// Parsing of "host:port" settings (listen, metrics_listen).
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

}  // namespace spillway::broker
