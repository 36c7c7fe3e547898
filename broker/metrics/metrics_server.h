// The /metrics endpoint: a minimal HTTP/1.1 server on its own listener
// (config [metrics] listen) that answers GET /metrics with Metrics::render()
// in the Prometheus text format, and 404 for any other path. One request per
// connection (Connection: close); requests are capped at 8 KiB.
#pragma once

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <string>

#include "../config/listen_address.h"
#include "spillway/common/status.h"

namespace spillway::broker {

class MetricsServer {
 public:
  // `render` builds the body; it runs on `context`'s thread.
  MetricsServer(asio::io_context& context, std::function<std::string()> render);

  // Binds and starts accepting. kIoError "metrics endpoint ([metrics] listen):
  // cannot listen on HOST:PORT: ..." when it cannot.
  Status open(const HostPort& address);
  asio::ip::tcp::endpoint local_endpoint() const;
  // Stops accepting; call on the context's thread.
  void close();

 private:
  void accept_next();

  asio::io_context& context_;
  std::function<std::string()> render_;
  std::unique_ptr<asio::ip::tcp::acceptor> acceptor_;
};

}  // namespace spillway::broker
