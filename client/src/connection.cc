// Connection: blocking request/response over one TCP socket. Each call runs a
// private io_context until its operation completes or its timeout passes;
// on timeout the socket is closed, which completes the operation.
#include "spillway/connection.h"

#include <array>
#include <asio/connect.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>

#include "channel.h"

namespace spillway {

struct Connection::Impl {
  asio::io_context io{1};
  asio::ip::tcp::socket socket{io};
  std::string address;
  ConnectionOptions options;
  int32_t next_correlation_id = 1;

  // Runs the io_context until `done` or `timeout`. False on timeout, after
  // closing the socket (so the pending operation has completed on return).
  bool run(const bool& done, std::chrono::milliseconds timeout) {
    io.restart();
    io.run_for(timeout);
    if (done) return true;
    asio::error_code ignored;
    socket.close(ignored);
    io.restart();
    io.run();
    return false;
  }

  Status transport_error(std::string_view what, const asio::error_code& ec) {
    asio::error_code ignored;
    socket.close(ignored);
    if (ec == asio::error::eof) {
      return Status(ErrorCode::kNotConnected, address + ": broker closed the connection");
    }
    return Status(ErrorCode::kNotConnected,
                  address + ": " + std::string(what) + " failed: " + ec.message());
  }

  // Reads exactly `n` bytes into `dst` within the request timeout.
  Status read_exactly(std::byte* dst, size_t n) {
    bool done = false;
    asio::error_code ec;
    asio::async_read(socket, asio::buffer(dst, n), [&](asio::error_code e, size_t) {
      ec = e;
      done = true;
    });
    if (!run(done, options.request_timeout)) {
      return Status(ErrorCode::kTimeout, address + ": no response within " +
                                             std::to_string(options.request_timeout.count()) +
                                             " ms");
    }
    return ec ? transport_error("read", ec) : Status::Ok();
  }
};

Result<Connection> Connection::connect(std::string_view address, ConnectionOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->address = std::string(address);
  impl->options = std::move(options);
  std::string host, port;
  SPILLWAY_RETURN_IF_ERROR(wire::split_address(address, &host, &port));

  asio::ip::tcp::resolver resolver(impl->io);
  asio::error_code ec;
  auto endpoints = resolver.resolve(host, port, asio::ip::resolver_base::numeric_service, ec);
  if (ec) {
    return Status(ErrorCode::kInvalidArgument,
                  "cannot resolve broker address '" + impl->address + "': " + ec.message());
  }
  bool done = false;
  asio::async_connect(impl->socket, endpoints, [&](asio::error_code e, const auto&) {
    ec = e;
    done = true;
  });
  if (!impl->run(done, impl->options.connect_timeout)) {
    return Status(ErrorCode::kTimeout,
                  "cannot connect to " + impl->address + ": no answer within " +
                      std::to_string(impl->options.connect_timeout.count()) + " ms");
  }
  if (ec) {
    return Status(ErrorCode::kNotConnected,
                  "cannot connect to " + impl->address + ": " + ec.message());
  }
  impl->socket.set_option(asio::ip::tcp::no_delay(true), ec);
  return Connection(std::move(impl));
}

Status check_broker_address(std::string_view address) {
  std::string host, port;
  return wire::split_address(address, &host, &port);
}

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;
Connection::~Connection() = default;

bool Connection::is_open() const noexcept {
  return impl_ && impl_->socket.is_open();
}

void Connection::close() noexcept {
  if (!impl_) return;
  asio::error_code ignored;
  impl_->socket.close(ignored);
}

const std::string& Connection::address() const noexcept {
  return impl_->address;
}
const ConnectionOptions& Connection::options() const noexcept {
  return impl_->options;
}

Result<std::vector<std::byte>> Connection::request(frame::ApiKey api_key, int16_t api_version,
                                                   std::span<const std::byte> body) {
  if (!is_open()) {
    return Status(ErrorCode::kNotConnected,
                  (impl_ ? impl_->address : std::string("?")) + ": connection is closed");
  }
  Impl& c = *impl_;
  const int32_t correlation_id = c.next_correlation_id++;
  std::array<std::byte, frame::kRequestHeaderBytes> header;
  frame::encode_request_header({static_cast<int16_t>(api_key), api_version, correlation_id,
                                static_cast<uint32_t>(body.size())},
                               header);

  // Header and body go out as one gather write, without joining them.
  const std::array<asio::const_buffer, 2> buffers = {asio::buffer(header),
                                                     asio::buffer(body.data(), body.size())};
  bool done = false;
  asio::error_code ec;
  asio::async_write(c.socket, buffers, [&](asio::error_code e, size_t) {
    ec = e;
    done = true;
  });
  if (!c.run(done, c.options.request_timeout)) {
    return Status(ErrorCode::kTimeout, c.address + ": request not sent within " +
                                           std::to_string(c.options.request_timeout.count()) +
                                           " ms");
  }
  if (ec) return c.transport_error("write", ec);

  std::array<std::byte, frame::kResponseHeaderBytes> response_header;
  SPILLWAY_RETURN_IF_ERROR(c.read_exactly(response_header.data(), response_header.size()));
  frame::ResponseHeader response;
  Status st =
      frame::decode_response_header(response_header, c.options.max_response_bytes, &response);
  if (!st.ok()) {
    close();
    return Status(st.code(), c.address + ": " + std::string(st.message()));
  }
  if (response.correlation_id != correlation_id) {
    close();
    return Status(ErrorCode::kCorruptMessage, c.address + ": response correlation id " +
                                                  std::to_string(response.correlation_id) +
                                                  " does not match request " +
                                                  std::to_string(correlation_id));
  }
  std::vector<std::byte> response_body(response.body_bytes);
  if (!response_body.empty()) {
    SPILLWAY_RETURN_IF_ERROR(c.read_exactly(response_body.data(), response_body.size()));
  }
  if (response.error_code != ErrorCode::kOk) {
    return frame::decode_error_body(response.error_code, response_body);
  }
  return response_body;
}

}  // namespace spillway
