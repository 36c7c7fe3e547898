// Opens a listening TCP acceptor on HOST:PORT: the one way both the
// protocol listener (net/server) and the /metrics endpoint bind their ports.
#pragma once

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <memory>
#include <string_view>

#include "../config/listen_address.h"
#include "spillway/common/status.h"

namespace spillway::broker {

// An acceptor bound (SO_REUSEADDR) and listening on `address`, driven by
// `context`. `what` names the setting in error messages ("listen address").
// Errors: kConfig for a host that is not an IP address, kIoError when the
// port cannot be bound.
Result<std::unique_ptr<asio::ip::tcp::acceptor>> open_listener(asio::io_context& context,
                                                               const HostPort& address,
                                                               std::string_view what);

}  // namespace spillway::broker
