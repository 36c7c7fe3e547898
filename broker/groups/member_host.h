// The host a group member is described with: Kafka's form, "/" and the
// member's address without the port ("/127.0.0.1"), whichever listener it
// joined through, so DescribeGroups shows Kafka and native members alike.
#pragma once

#include <string>
#include <string_view>

namespace spillway::broker::groups {

// `peer` is the connection's "host:port" (Exchange::peer()).
inline std::string member_host(std::string_view peer) {
  const size_t colon = peer.rfind(':');
  return "/" + std::string(colon == std::string_view::npos ? peer : peer.substr(0, colon));
}

}  // namespace spillway::broker::groups
