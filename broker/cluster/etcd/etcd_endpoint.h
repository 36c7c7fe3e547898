// An etcd client endpoint, "http://HOST:PORT" (the gateway speaks plain
// HTTP; TLS to etcd is not supported).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::broker::cluster::etcd {

struct EtcdEndpoint {
  std::string host;
  uint16_t port = 0;
  std::string text;  // as given, for messages
};

// kConfig for anything but http://HOST:PORT (an optional trailing '/').
Result<EtcdEndpoint> parse_endpoint(std::string_view url);

// "http://a:1,http://b:2" -> its items, spaces around them removed, empty
// items dropped.
std::vector<std::string> split_endpoint_list(std::string_view list);

}  // namespace spillway::broker::cluster::etcd
