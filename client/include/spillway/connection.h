// A blocking connection to one broker over the native protocol: send a
// request frame, wait for its response, get the response body as bytes the
// caller owns. Frames are specified in docs/protocol.md.
//
// A Connection is a handle on the client library's one transport
// (client/src/channel.h). Admin makes its calls through one; the Producer's
// I/O thread and the Consumer use the same transport directly, with a
// response buffer that is reused instead of a vector per response.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/frame.h"
#include "spillway/common/status.h"

namespace spillway {

// TLS to the broker (a listener whose security protocol is SSL or
// SASL_SSL; docs/security.md).
struct TlsOptions {
  bool enabled = false;
  // PEM file of the CAs that verify the broker's certificate; empty = the
  // system's default trust store.
  std::string ca_file;
  // The client's certificate and key (PEM), for listeners that require one
  // (mutual TLS: the principal is then taken from its subject).
  std::string cert_file;
  std::string key_file;
  // The name checked against the broker's certificate and sent as SNI;
  // empty = the host of the broker address.
  std::string server_name;
};

// SASL authentication (a listener whose security protocol is
// SASL_PLAINTEXT or SASL_SSL).
struct SaslOptions {
  // "PLAIN", "SCRAM-SHA-256" or "SCRAM-SHA-512"; empty = no SASL.
  std::string mechanism;
  std::string username;
  std::string password;
};

struct SecurityOptions {
  TlsOptions tls;
  SaslOptions sasl;
};

struct ConnectionOptions {
  std::chrono::milliseconds connect_timeout{5'000};
  // How long a response may take to arrive whole, from the moment it is
  // awaited.
  std::chrono::milliseconds request_timeout{10'000};
  // Largest response accepted; a longer one fails the request with
  // kFrameTooLarge (and closes the connection) before any buffer is sized.
  uint32_t max_response_bytes = 64u << 20;
  // Sent in ApiVersions so the broker's log can tell clients apart.
  std::string client_id = "spillway-client";
  // TLS and SASL; the defaults are a plaintext, unauthenticated connection.
  SecurityOptions security;
};

// Checks that `address` has the form Connection::connect() (and the
// Producer's and Consumer's bootstrap) take: "host:port" or "[v6]:port" with
// a port from 1 to 65535. Neither resolves nor connects. Error:
// kInvalidArgument saying what is wrong.
Status check_broker_address(std::string_view address);
// The same for a bootstrap list: one or more such addresses separated by
// commas ("h1:9093,h2:9093"), as the Producer and Consumer take.
Status check_bootstrap(std::string_view list);

class Connection;
namespace wire {
class Channel;
// The transport behind `connection`, for the library's own calls.
Channel& channel_of(Connection& connection) noexcept;
}  // namespace wire

class Connection {
 public:
  // Connects to `address` ("host:port"; host may be a name, an IPv4 literal
  // or a [bracketed] IPv6 literal). Errors: kInvalidArgument for a malformed
  // address, kNotConnected when no address answers, kTimeout.
  static Result<Connection> connect(std::string_view address, ConnectionOptions options = {});

  Connection(Connection&&) noexcept;
  Connection& operator=(Connection&&) noexcept;
  ~Connection();  // closes the socket

  // Sends one request and waits for its response. Returns the response body
  // when the broker answered with error code 0; an error response becomes a
  // Status carrying the broker's code and message. Transport failures
  // (kNotConnected, kTimeout, kCorruptMessage, kFrameTooLarge) close the
  // connection; later calls then fail with kNotConnected. Not thread-safe.
  Result<std::vector<std::byte>> request(frame::ApiKey api_key, int16_t api_version,
                                         std::span<const std::byte> body);

  // True until a transport failure or close().
  bool is_open() const noexcept;
  void close() noexcept;

  // The address given to connect().
  const std::string& address() const noexcept;
  const ConnectionOptions& options() const noexcept;

 private:
  friend wire::Channel& wire::channel_of(Connection& connection) noexcept;
  explicit Connection(std::unique_ptr<wire::Channel> channel);
  std::unique_ptr<wire::Channel> channel_;
};

}  // namespace spillway
