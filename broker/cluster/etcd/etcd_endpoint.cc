#include "cluster/etcd/etcd_endpoint.h"

#include <charconv>

namespace spillway::broker::cluster::etcd {

Result<EtcdEndpoint> parse_endpoint(std::string_view url) {
  auto bad = [&](const char* why) {
    return Status(ErrorCode::kConfig, "etcd endpoint '" + std::string(url) + "': " + why +
                                          " (expected http://HOST:PORT)");
  };
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) return bad("not http://");
  std::string_view rest = url.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return bad("no HOST:PORT");
  std::string_view host = rest.substr(0, colon);
  std::string_view port_text = rest.substr(colon + 1);
  if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host.find_first_of("/@ ") != std::string_view::npos) return bad("bad host");
  unsigned port = 0;
  auto [p, e] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || e != std::errc() || p != port_text.data() + port_text.size() ||
      port == 0 || port > 65535) {
    return bad("bad port");
  }
  EtcdEndpoint endpoint;
  endpoint.host = std::string(host);
  endpoint.port = static_cast<uint16_t>(port);
  endpoint.text = std::string(url);
  return endpoint;
}

std::vector<std::string> split_endpoint_list(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace spillway::broker::cluster::etcd
