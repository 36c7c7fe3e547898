#include "cluster/etcd/etcd_session.h"

namespace spillway::broker::cluster::etcd {

EtcdSession::EtcdSession(asio::io_context& io_context, const std::vector<std::string>& urls,
                         EtcdOptions opts)
    : io(io_context), options(opts) {
  for (const std::string& url : urls) {
    auto endpoint = parse_endpoint(url);
    if (!endpoint) {
      config_error =
          Status(ErrorCode::kCoordinationUnavailable, std::string(endpoint.status().message()));
      endpoints.clear();
      return;
    }
    endpoints.push_back(std::move(*endpoint));
  }
  if (endpoints.empty()) {
    config_error = Status(ErrorCode::kCoordinationUnavailable, "etcd: no endpoints configured");
  }
}

}  // namespace spillway::broker::cluster::etcd
