// A tiny HTTP/1.1 GET server for /metrics.
#include "metrics_server.h"

#include <spdlog/spdlog.h>

#include <array>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>
#include <memory>

#include "../net/connection_stream.h"
#include "../net/listener.h"

namespace spillway::broker {

namespace {

constexpr size_t kMaxRequestBytes = 8 << 10;
// A scrape (TLS handshake included) that takes longer is cut: a stalled
// client must not hold a connection open.
constexpr std::chrono::seconds kExchangeTimeout{10};

// One HTTP exchange: read the request head, answer, close. Callback-driven
// (no coroutines) so it builds with every compiler the project supports.
class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(asio::ip::tcp::socket socket, MetricsServer::Render* render)
      : stream_(std::move(socket)), deadline_(stream_.get_executor()), render_(render) {}

  // Plain HTTP, or HTTPS with `tls` (its current context).
  void start(const security::TlsContextSource* tls) {
    deadline_.expires_after(kExchangeTimeout);
    deadline_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
      if (!ec) self->close();
    });
    if (tls == nullptr) {
      read();
      return;
    }
    stream_.use_tls(tls->current());
    stream_.tls_stream().async_handshake(
        asio::ssl::stream_base::server, [self = shared_from_this()](const asio::error_code& ec) {
          if (ec) {
            spdlog::debug("metrics: TLS handshake failed: {}", ec.message());
            self->close();
            return;
          }
          self->read();
        });
  }

  void read() {
    stream_.async_read_some(asio::buffer(buf_),
                            [self = shared_from_this()](const asio::error_code& ec, size_t n) {
                              if (ec) return;
                              self->request_.append(self->buf_.data(), n);
                              if (self->request_.find("\r\n\r\n") != std::string::npos) {
                                self->respond();
                              } else if (self->request_.size() <= kMaxRequestBytes) {
                                self->read();
                              }
                            });
  }

 private:
  void respond() {
    if (request_.rfind("GET /metrics ", 0) == 0 || request_.rfind("GET /metrics?", 0) == 0) {
      (*render_)(
          [self = shared_from_this()](std::string body) { self->send("200 OK", std::move(body)); });
    } else if (request_.rfind("GET ", 0) == 0) {
      send("404 Not Found", "only /metrics is served\n");
    } else {
      send("405 Method Not Allowed", "only GET is served\n");
    }
  }

  void send(const std::string& status, std::string body) {
    response_ = "HTTP/1.1 " + status +
                "\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    asio::async_write(stream_, asio::buffer(response_),
                      [self = shared_from_this()](const asio::error_code& ec, size_t) {
                        if (!ec && self->stream_.tls()) {
                          // close_notify; the deadline bounds the wait for the client's.
                          self->stream_.tls_stream().async_shutdown(
                              [self](const asio::error_code&) { self->close(); });
                          return;
                        }
                        asio::error_code ignored;
                        self->stream_.socket().shutdown(asio::socket_base::shutdown_both, ignored);
                        self->deadline_.cancel();
                      });
  }

  void close() {
    asio::error_code ignored;
    stream_.socket().close(ignored);
    deadline_.cancel();
  }

  ConnectionStream stream_;
  asio::steady_timer deadline_;
  MetricsServer::Render* render_;
  std::array<char, 1024> buf_;
  std::string request_;
  std::string response_;
};

}  // namespace

MetricsServer::MetricsServer(asio::io_context& context, Render render)
    : context_(context), render_(std::move(render)) {}

Status MetricsServer::open(const HostPort& address) {
  auto acceptor = open_listener(context_, address, "metrics address");
  if (!acceptor.ok()) {
    // Say which listener: the operator sees only this line before exit 1.
    return Status(acceptor.status().code(), "metrics endpoint ([metrics] listen): " +
                                                std::string(acceptor.status().message()));
  }
  acceptor_ = std::move(acceptor).value();
  accept_next();
  return Status::Ok();
}

asio::ip::tcp::endpoint MetricsServer::local_endpoint() const {
  asio::error_code ec;
  return acceptor_->local_endpoint(ec);
}

void MetricsServer::close() {
  asio::error_code ignored;
  if (acceptor_) acceptor_->close(ignored);
}

void MetricsServer::accept_next() {
  acceptor_->async_accept([this](asio::error_code ec, asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_->is_open()) return;
    if (!ec) std::make_shared<HttpConnection>(std::move(socket), &render_)->start(tls_);
    accept_next();
  });
}

}  // namespace spillway::broker
