// The scripted broker of the transport tests (see scripted_broker.h).
#include "scripted_broker.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>

#include "socket_io.h"

namespace spillway::testing {

ScriptedBroker::ScriptedBroker(std::function<void(int fd)> script, int connections)
    : ScriptedBroker([script = std::move(script)](int fd, int) { script(fd); }, connections) {}

ScriptedBroker::ScriptedBroker(std::function<void(int fd, int index)> script, int connections) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(::listen(listen_fd_, 4), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this, script = std::move(script), connections] {
    for (int i = 0; i < connections; ++i) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      int one = 1;  // a header and a body are two sends: no Nagle delay between them
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      script(fd, i);
      ::close(fd);
    }
  });
}

ScriptedBroker::~ScriptedBroker() {
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept() if nobody came
  thread_.join();
  ::close(listen_fd_);
}

bool write_all(int fd, std::span<const std::byte> bytes) {
  return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

std::pair<frame::RequestHeader, std::vector<std::byte>> read_request(int fd) {
  std::array<std::byte, frame::kRequestHeaderBytes> h;
  frame::RequestHeader header;
  std::vector<std::byte> body;
  if (!read_exactly(fd, h.data(), h.size())) return {header, body};
  EXPECT_TRUE(frame::decode_request_header(h, 1 << 20, &header).ok());
  body.resize(header.body_bytes);
  EXPECT_TRUE(read_exactly(fd, body.data(), body.size()));
  return {header, body};
}

bool send_response(int fd, int32_t correlation_id, std::span<const std::byte> body,
                   ErrorCode error) {
  std::array<std::byte, frame::kResponseHeaderBytes> h;
  frame::encode_response_header({.correlation_id = correlation_id,
                                 .error_code = error,
                                 .body_bytes = static_cast<uint32_t>(body.size())},
                                h);
  return write_all(fd, h) && write_all(fd, body);
}

}  // namespace spillway::testing
