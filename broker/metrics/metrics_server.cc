// A tiny HTTP/1.1 GET server for /metrics.
#include "metrics_server.h"

#include <spdlog/spdlog.h>

#include <array>
#include <asio/write.hpp>
#include <memory>

#include "../net/listener.h"

namespace spillway::broker {

namespace {

constexpr size_t kMaxRequestBytes = 8 << 10;

// One HTTP exchange: read the request head, answer, close. Callback-driven
// (no coroutines) so it builds with every compiler the project supports.
class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(asio::ip::tcp::socket socket, MetricsServer::Render* render)
      : socket_(std::move(socket)), render_(render) {}

  void read() {
    socket_.async_read_some(asio::buffer(buf_),
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
    asio::async_write(socket_, asio::buffer(response_),
                      [self = shared_from_this()](const asio::error_code&, size_t) {
                        asio::error_code ignored;
                        self->socket_.shutdown(asio::socket_base::shutdown_both, ignored);
                      });
  }

  asio::ip::tcp::socket socket_;
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
    if (!ec) std::make_shared<HttpConnection>(std::move(socket), &render_)->read();
    accept_next();
  });
}

}  // namespace spillway::broker
