// Channel: blocking socket, gather-written requests, whole-frame responses.
#include "channel.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "spillway/common/endian.h"

namespace spillway::wire {

Result<uint64_t> begin_frame(WriteBuffer& out, frame::ApiKey key, int16_t api_version,
                             int32_t correlation_id) noexcept {
  const uint64_t start = out.bytes_written();
  std::byte header[frame::kRequestHeaderBytes];
  frame::encode_request_header(
      {static_cast<int16_t>(key), api_version, correlation_id, 0},
      std::span<std::byte, frame::kRequestHeaderBytes>(header, frame::kRequestHeaderBytes));
  SPILLWAY_RETURN_IF_ERROR(out.write(header));
  return start;
}

void end_frame(WriteBuffer& out, uint64_t start) noexcept {
  std::byte length[frame::kLengthBytes];
  store_be<uint32_t>(length,
                     static_cast<uint32_t>(out.bytes_written() - start - frame::kLengthBytes));
  out.overwrite(start, length);
}

Status split_address(std::string_view address, std::string* host, std::string* port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == address.size() || colon == 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "broker address '" + std::string(address) + "' is not HOST:PORT");
  }
  const std::string_view digits = address.substr(colon + 1);
  uint32_t number = 0;
  for (char c : digits) {
    number = c >= '0' && c <= '9' && number <= 65535 ? number * 10 + static_cast<uint32_t>(c - '0')
                                                     : UINT32_MAX;
  }
  if (number == 0 || number > 65535) {
    return Status(ErrorCode::kInvalidArgument,
                  "broker address '" + std::string(address) +
                      "' is not HOST:PORT with a PORT from 1 to 65535");
  }
  std::string_view h = address.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  *host = std::string(h);
  *port = std::string(address.substr(colon + 1));
  return Status::Ok();
}

namespace {

// Connects a non-blocking socket within `timeout`; returns the fd or -errno.
int connect_one(const addrinfo* ai, std::chrono::milliseconds timeout) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) return -errno;
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      int e = errno;
      ::close(fd);
      return -e;
    }
    pollfd p{fd, POLLOUT, 0};
    int r;
    do {
      r = ::poll(&p, 1, static_cast<int>(timeout.count()));
    } while (r < 0 && errno == EINTR);
    if (r == 0) {
      ::close(fd);
      return -ETIMEDOUT;
    }
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      ::close(fd);
      return -err;
    }
  }
  // Back to blocking: the GatherWriter and the frame reads block, bounded
  // by the send/receive timeouts.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

Status Channel::connect(std::string_view address, std::chrono::milliseconds timeout,
                        std::chrono::milliseconds io_timeout) {
  close();
  address_ = std::string(address);
  std::string host, port;
  SPILLWAY_RETURN_IF_ERROR(split_address(address, &host, &port));
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* list = nullptr;
  const int gai = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &list);
  if (gai != 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "cannot resolve broker address '" + address_ + "': " + ::gai_strerror(gai));
  }
  int last = ECONNREFUSED;
  for (const addrinfo* ai = list; ai; ai = ai->ai_next) {
    const int fd = connect_one(ai, timeout);
    if (fd >= 0) {
      fd_ = fd;
      break;
    }
    last = -fd;
  }
  ::freeaddrinfo(list);
  if (fd_ < 0) {
    if (last == ETIMEDOUT) {
      return Status(ErrorCode::kTimeout, "cannot connect to " + address_ + ": no answer within " +
                                             std::to_string(timeout.count()) + " ms");
    }
    return Status(ErrorCode::kNotConnected,
                  "cannot connect to " + address_ + ": " + std::strerror(last));
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  timeval tv{};
  tv.tv_sec = io_timeout.count() / 1000;
  tv.tv_usec = (io_timeout.count() % 1000) * 1000;
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  return Status::Ok();
}

void Channel::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status Channel::send(WriteBuffer& request) noexcept {
  if (fd_ < 0) return Status(ErrorCode::kNotConnected, address_ + ": not connected");
  Status st = writer_.send_all(fd_, request.segments());
  if (!st.ok()) {
    close();
    return Status(ErrorCode::kNotConnected,
                  address_ + ": send failed: " + std::string(st.message()));
  }
  return Status::Ok();
}

Status Channel::read_exactly(std::byte* dst, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::recv(fd_, dst, n, 0);
    if (r > 0) {
      dst += r;
      n -= static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    const int e = errno;
    close();
    if (r == 0)
      return Status(ErrorCode::kNotConnected, address_ + ": broker closed the connection");
    if (e == EAGAIN || e == EWOULDBLOCK) {
      return Status(ErrorCode::kTimeout, address_ + ": no response in time");
    }
    return Status(ErrorCode::kNotConnected, address_ + ": read failed: " + std::strerror(e));
  }
  return Status::Ok();
}

Result<Response> Channel::read_response(uint32_t max_bytes) {
  if (fd_ < 0) return Status(ErrorCode::kNotConnected, address_ + ": not connected");
  std::byte header[frame::kResponseHeaderBytes];
  SPILLWAY_RETURN_IF_ERROR(read_exactly(header, sizeof(header)));
  frame::ResponseHeader h;
  Status st = frame::decode_response_header(
      std::span<const std::byte, frame::kResponseHeaderBytes>(header, sizeof(header)), max_bytes,
      &h);
  if (!st.ok()) {
    close();
    return Status(st.code(), address_ + ": " + std::string(st.message()));
  }
  if (h.body_bytes > capacity_) {
    // Grows to the largest response seen, then is reused.
    buffer_ = std::make_unique_for_overwrite<std::byte[]>(h.body_bytes);
    capacity_ = h.body_bytes;
  }
  if (h.body_bytes > 0) SPILLWAY_RETURN_IF_ERROR(read_exactly(buffer_.get(), h.body_bytes));
  return Response{h.correlation_id, h.error_code, {buffer_.get(), h.body_bytes}};
}

void Channel::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return;
  buffer_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
  capacity_ = bytes;
}

bool Channel::wait_readable(std::chrono::milliseconds timeout, int wake_fd) noexcept {
  if (fd_ < 0) return false;
  pollfd p[2] = {{fd_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
  const int r = ::poll(p, wake_fd >= 0 ? 2 : 1, static_cast<int>(timeout.count()));
  return r > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

}  // namespace spillway::wire
