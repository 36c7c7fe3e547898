#include "listener.h"

#include <string>

namespace spillway::broker {

Result<std::unique_ptr<asio::ip::tcp::acceptor>> open_listener(asio::io_context& context,
                                                               const HostPort& address,
                                                               std::string_view what) {
  asio::error_code ec;
  const auto ip = asio::ip::make_address(address.host, ec);
  const std::string where = address.host + ":" + std::to_string(address.port);
  if (ec) return Status(ErrorCode::kConfig, std::string(what) + " " + where + ": " + ec.message());
  asio::ip::tcp::endpoint endpoint(ip, address.port);
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(context);
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status(ErrorCode::kIoError, "cannot listen on " + where + ": " + ec.message());
  return acceptor;
}

}  // namespace spillway::broker
