// The /metrics endpoint: a minimal HTTP/1.1 server on its own listener
// (config [metrics] listen) that answers GET /metrics with what its render
// function produces (Metrics::render() and the group metrics, in the
// Prometheus text format), and 404 for any other path. One request per
// connection (Connection: close); requests are capped at 8 KiB.
#pragma once

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <string>

#include "../config/listen_address.h"
#include "../security/tls_context.h"
#include "spillway/common/status.h"

namespace spillway::broker {

class MetricsServer {
 public:
  // Gives the body of a /metrics answer; called once, on the context's thread.
  using Reply = std::function<void(std::string body)>;
  // `render` builds the body and hands it to its Reply, at once or later
  // (after asking other cores); it runs on `context`'s thread.
  using Render = std::function<void(Reply)>;
  MetricsServer(asio::io_context& context, Render render);

  // Serves HTTPS with `tls`'s current context (which must outlive the
  // server). Call before open().
  void use_tls(const security::TlsContextSource* tls) { tls_ = tls; }

  // Binds and starts accepting. kIoError "metrics endpoint ([metrics] listen):
  // cannot listen on HOST:PORT: ..." when it cannot.
  Status open(const HostPort& address);
  asio::ip::tcp::endpoint local_endpoint() const;
  // Stops accepting; call on the context's thread.
  void close();

 private:
  void accept_next();

  asio::io_context& context_;
  Render render_;
  std::unique_ptr<asio::ip::tcp::acceptor> acceptor_;
  const security::TlsContextSource* tls_ = nullptr;
};

}  // namespace spillway::broker
