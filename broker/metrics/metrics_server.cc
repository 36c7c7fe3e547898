// A tiny HTTP/1.1 GET server for /metrics.
#include "metrics_server.h"

#include <spdlog/spdlog.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

namespace spillway::broker {

namespace {

constexpr auto kAsTuple = asio::experimental::as_tuple(asio::use_awaitable);
constexpr size_t kMaxRequestBytes = 8 << 10;

asio::awaitable<void> serve(asio::ip::tcp::socket socket, std::function<std::string()>* render) {
  std::string request;
  char buf[1024];
  while (request.find("\r\n\r\n") == std::string::npos) {
    auto [ec, n] = co_await socket.async_read_some(asio::buffer(buf), kAsTuple);
    if (ec) co_return;
    request.append(buf, n);
    if (request.size() > kMaxRequestBytes) co_return;
  }
  std::string status = "200 OK", body;
  if (request.rfind("GET /metrics ", 0) == 0 || request.rfind("GET /metrics?", 0) == 0) {
    body = (*render)();
  } else if (request.rfind("GET ", 0) == 0) {
    status = "404 Not Found";
    body = "only /metrics is served\n";
  } else {
    status = "405 Method Not Allowed";
    body = "only GET is served\n";
  }
  const std::string response = "HTTP/1.1 " + status +
                               "\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  co_await asio::async_write(socket, asio::buffer(response), kAsTuple);
  asio::error_code ignored;
  socket.shutdown(asio::socket_base::shutdown_both, ignored);
}

}  // namespace

MetricsServer::MetricsServer(asio::io_context& context, std::function<std::string()> render)
    : context_(context), render_(std::move(render)) {}

Status MetricsServer::open(const HostPort& address) {
  asio::error_code ec;
  const auto ip = asio::ip::make_address(address.host, ec);
  const std::string where = address.host + ":" + std::to_string(address.port);
  if (ec) return Status(ErrorCode::kConfig, "metrics address " + where + ": " + ec.message());
  asio::ip::tcp::endpoint endpoint(ip, address.port);
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(context_);
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status(ErrorCode::kIoError, "cannot listen on " + where + ": " + ec.message());
  acceptor_ = std::move(acceptor);
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
    if (!ec) asio::co_spawn(context_, serve(std::move(socket), &render_), asio::detached);
    accept_next();
  });
}

}  // namespace spillway::broker
