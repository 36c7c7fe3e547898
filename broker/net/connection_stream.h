// A connection's byte stream: the plain TCP socket, or TLS over it. The
// session's reader and writer use asio's composed reads and writes on this
// one type, so there is one code path for both; the choice is a branch per
// operation, not a virtual call, and the completion handler (with its
// HandlerMemory allocator) is passed through unchanged.
//
// Not movable: the TLS stream refers to socket_.
#pragma once

#include <asio/ip/tcp.hpp>
#include <asio/ssl/context.hpp>
#include <asio/ssl/stream.hpp>
#include <memory>
#include <optional>
#include <utility>

namespace spillway::broker {

class ConnectionStream {
 public:
  using executor_type = asio::ip::tcp::socket::executor_type;
  using Tls = asio::ssl::stream<asio::ip::tcp::socket&>;

  explicit ConnectionStream(asio::ip::tcp::socket socket) : socket_(std::move(socket)) {}
  ConnectionStream(const ConnectionStream&) = delete;
  ConnectionStream& operator=(const ConnectionStream&) = delete;

  // From now on the stream speaks TLS with `context` (kept alive for the
  // connection's life: a SIGHUP reload swaps the listener's context, not
  // this one). Call before the handshake, with no operation pending.
  void use_tls(std::shared_ptr<asio::ssl::context> context) {
    context_ = std::move(context);
    tls_.emplace(socket_, *context_);
  }
  bool tls() const { return tls_.has_value(); }
  Tls& tls_stream() { return *tls_; }
  asio::ip::tcp::socket& socket() { return socket_; }

  executor_type get_executor() { return socket_.get_executor(); }

  template <typename MutableBuffers, typename Handler>
  void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    } else {
      socket_.async_read_some(buffers, std::forward<Handler>(handler));
    }
  }

  template <typename ConstBuffers, typename Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_write_some(buffers, std::forward<Handler>(handler));
    } else {
      socket_.async_write_some(buffers, std::forward<Handler>(handler));
    }
  }

 private:
  asio::ip::tcp::socket socket_;
  std::shared_ptr<asio::ssl::context> context_;
  std::optional<Tls> tls_;
};

}  // namespace spillway::broker
