// A deliberately dumb TCP client for integration tests: sends arbitrary bytes
// (including malformed frames) and reads responses, with a receive timeout so
// a broken broker fails the test instead of hanging it.
//
// Every call retries EINTR. It happens without any signal handler: closing
// an io_uring ring (the client library's Channel owns one) makes the kernel
// queue task work to the thread that used it, which interrupts that
// thread's next blocking call, and a recv on a socket with SO_RCVTIMEO is
// not restarted. A test that destroys a Consumer and then reads here would
// otherwise see a response cut short.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "socket_io.h"
#include "spillway/common/api_versions.h"
#include "spillway/common/frame.h"

namespace spillway::testing {

class RawClient {
 public:
  struct Options {
    // Source address to bind before connecting (e.g. "127.0.0.2": any
    // 127/8 address reaches the broker as another client address).
    const char* source_ip = nullptr;
    // SO_RCVBUF before connecting; 0 = the kernel's default. A small one
    // makes a client that does not read back up the broker quickly.
    int receive_buffer_bytes = 0;
  };

  // Connects to 127.0.0.1:port; connected() tells whether it worked.
  explicit RawClient(uint16_t port) : RawClient(port, Options{}) {}
  RawClient(uint16_t port, const Options& options) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{10, 0};  // a guard against hanging, never an assertion
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (options.receive_buffer_bytes > 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &options.receive_buffer_bytes,
                   sizeof(options.receive_buffer_bytes));
    }
    if (options.source_ip != nullptr) {
      sockaddr_in source{};
      source.sin_family = AF_INET;
      ::inet_pton(AF_INET, options.source_ip, &source.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof(source)) != 0) return;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
      connected_ = true;
    } else if (errno == EINTR) {
      // The connection goes on in the background (connect(2)): wait for it.
      pollfd p{fd_, POLLOUT, 0};
      int r;
      while ((r = ::poll(&p, 1, 10'000)) < 0 && errno == EINTR) {
      }
      int error = r == 0 ? ETIMEDOUT : 0;
      socklen_t len = sizeof(error);
      if (r > 0) ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len);
      connected_ = error == 0;
      connect_error_ = error;
    } else {
      connect_error_ = errno;
    }
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  // The errno of the failed connect (0 when connected).
  int connect_error() const { return connect_error_; }
  int fd() const { return fd_; }

  // Reads until the broker closes the connection (or the receive timeout
  // passes, or the read fails); returns every byte received. `error`, if
  // given, is set to 0 after an orderly EOF, else to the failed recv's
  // errno (EAGAIN/EWOULDBLOCK: the receive timeout).
  std::vector<std::byte> read_until_eof(int* error = nullptr) {
    std::vector<std::byte> out;
    std::array<std::byte, 65536> chunk;
    for (;;) {
      const ssize_t r = ::recv(fd_, chunk.data(), chunk.size(), 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        if (error != nullptr) *error = r == 0 ? 0 : errno;
        return out;
      }
      out.insert(out.end(), chunk.begin(), chunk.begin() + r);
    }
  }

  bool send_bytes(std::span<const std::byte> bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  // Sends a request header claiming `body_bytes`, followed by `body`.
  bool send_request(int16_t api_key, int16_t version, int32_t correlation_id, uint32_t body_bytes,
                    std::span<const std::byte> body = {}) {
    std::array<std::byte, frame::kRequestHeaderBytes> header;
    frame::encode_request_header({api_key, version, correlation_id, body_bytes}, header);
    return send_bytes(header) && send_bytes(body);
  }

  bool send_api_versions(int32_t correlation_id) {
    std::vector<std::byte> body;
    encode_api_versions_request("raw-test-client", body);
    return send_request(0, 0, correlation_id, static_cast<uint32_t>(body.size()), body);
  }

  struct Response {
    frame::ResponseHeader header;
    std::vector<std::byte> body;
  };

  // Reads one response; nullopt on EOF, error or timeout.
  std::optional<Response> read_response() {
    std::array<std::byte, frame::kResponseHeaderBytes> header_bytes;
    if (!read_exactly(header_bytes.data(), header_bytes.size())) return std::nullopt;
    Response response;
    if (!frame::decode_response_header(header_bytes, 64 << 20, &response.header).ok()) {
      return std::nullopt;
    }
    response.body.resize(response.header.body_bytes);
    if (!read_exactly(response.body.data(), response.body.size())) return std::nullopt;
    return response;
  }

  // True when the broker closed the connection (a read returns EOF or reset).
  bool closed_by_peer() {
    std::byte b;
    ssize_t n;
    while ((n = ::recv(fd_, &b, 1, 0)) < 0 && errno == EINTR) {
    }
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

  // A full ApiVersions round trip; the broker's version string or "".
  std::string api_versions_round_trip(int32_t correlation_id) {
    if (!send_api_versions(correlation_id)) return "";
    auto response = read_response();
    if (!response || response->header.correlation_id != correlation_id ||
        response->header.error_code != ErrorCode::kOk) {
      return "";
    }
    auto decoded = decode_api_versions_response(response->body);
    return decoded.ok() ? decoded->broker_version : "";
  }

 private:
  bool read_exactly(std::byte* dst, size_t n) {
    return spillway::testing::read_exactly(fd_, dst, n);
  }

  int fd_ = -1;
  bool connected_ = false;
  int connect_error_ = 0;
};

}  // namespace spillway::testing
