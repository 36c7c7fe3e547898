// Parsing of "host:port" settings.
#include "listen_address.h"

#include <asio/ip/address.hpp>
#include <charconv>

namespace spillway::broker {

Result<HostPort> parse_host_port(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Status(ErrorCode::kConfig, "'" + std::string(text) + "' " + std::string(why) +
                                          "; expected IP:PORT such as 127.0.0.1:9092 or "
                                          "[::1]:9092");
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("has no port");
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("has an IPv6 host without [brackets]");
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port_text.empty() ||
      port > 65535) {
    return bad("has a port that is not a number in [0, 65535]");
  }
  asio::error_code addr_ec;
  asio::ip::make_address(std::string(host), addr_ec);
  if (addr_ec) return bad("has a host that is not an IP address");
  return HostPort{std::string(host), static_cast<uint16_t>(port)};
}

Result<HostPort> parse_advertised_address(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Status(ErrorCode::kConfig, "'" + std::string(text) + "' " + std::string(why) +
                                          "; expected HOST:PORT such as kafka.example.com:9092");
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("has no port");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("has an IPv6 host without [brackets]");
  }
  if (host.empty() || host.size() > 253) return bad("has no host, or one too long");
  for (char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_' || c == ':';
    if (!ok) return bad("has a character a host name cannot have");
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port_text.empty() ||
      port == 0 || port > 65535) {
    return bad("has a port that is not a number in [1, 65535]");
  }
  return HostPort{std::string(host), static_cast<uint16_t>(port)};
}

}  // namespace spillway::broker
