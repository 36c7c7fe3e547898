// Channel: the client's one transport (see channel.h): a blocking socket,
// gather-written requests, whole-frame responses read by a deadline.
#include "channel.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "spillway/common/endian.h"

namespace spillway::wire {

Result<uint64_t> begin_frame(WriteBuffer& out, frame::ApiKey key, int16_t api_version,
                             int32_t correlation_id) noexcept {
  const uint64_t start = out.bytes_written();
  std::byte header[frame::kRequestHeaderBytes];
  frame::encode_request_header(
      {.api_key = static_cast<int16_t>(key),
       .api_version = api_version,
       .correlation_id = correlation_id,
       .body_bytes = 0},  // patched by end_frame()
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
  // Back to blocking for the GatherWriter's sends; reads pass MSG_DONTWAIT
  // and wait for their deadline with poll().
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

Status Channel::connect(std::string_view address, const ConnectionOptions& options) {
  close();
  address_ = std::string(address);
  options_ = options;
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
    const int fd = connect_one(ai, options_.connect_timeout);
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
                                             std::to_string(options_.connect_timeout.count()) +
                                             " ms");
    }
    return Status(ErrorCode::kNotConnected,
                  "cannot connect to " + address_ + ": " + std::strerror(last));
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  timeval tv{};
  tv.tv_sec = options_.request_timeout.count() / 1000;
  tv.tv_usec = (options_.request_timeout.count() % 1000) * 1000;
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  if (options_.security.tls.enabled) {
    // TLS runs on a non-blocking socket; its reads and writes wait with
    // poll() for their deadlines.
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
    tls_ = std::make_unique<TlsClient>();
    Status st = tls_->handshake(fd_, address_, host, options_.security.tls,
                                Clock::now() + options_.connect_timeout);
    if (!st.ok()) {
      close();
      return st;
    }
  }
  // SASL after TLS: the credentials travel inside it.
  if (!options_.security.sasl.mechanism.empty()) {
    if (Status st = authenticate(); !st.ok()) {
      close();
      return st;
    }
  }
  return Status::Ok();
}

void Channel::close() noexcept {
  tls_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status Channel::fail(ErrorCode code, std::string_view what) {
  close();
  return Status(code, address_ + ": " + std::string(what));
}

Status Channel::send(WriteBuffer& request, bool close_on_failure) noexcept {
  if (fd_ < 0) return Status(ErrorCode::kNotConnected, address_ + ": connection is closed");
  Status st = tls_ ? tls_->write(request.segments(), Clock::now() + options_.request_timeout)
                   : writer_.send_all(fd_, request.segments());
  if (st.ok()) return Status::Ok();
  const std::string why = "send failed: " + std::string(st.message());
  if (!close_on_failure) return Status(ErrorCode::kNotConnected, address_ + ": " + why);
  return fail(ErrorCode::kNotConnected, why);
}

Status Channel::await_bytes(Deadline deadline) {
  for (;;) {
    const auto left = deadline.at - Clock::now();
    if (left <= Clock::duration::zero()) {
      return fail(ErrorCode::kTimeout,
                  "no response within " + std::to_string(deadline.timeout.count()) + " ms");
    }
    // Rounded up, so that a wait never ends just short of the deadline.
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    pollfd p{fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(ms, INT32_MAX)));
    if (r > 0) return Status::Ok();  // readable, closed or failed: recv() tells which
    if (r < 0 && errno != EINTR) {
      return fail(ErrorCode::kNotConnected, std::string("poll failed: ") + std::strerror(errno));
    }
  }
}

Status Channel::read_exactly(std::byte* dst, std::size_t n, Deadline deadline) {
  bool wait = false;
  while (tls_ && n > 0) {
    if (wait) SPILLWAY_RETURN_IF_ERROR(await_bytes(deadline));
    std::size_t got = 0;
    Status st = tls_->read_some(dst, n, &got);
    if (!st.ok()) return fail(st.code(), st.message());
    dst += got;
    n -= got;
    wait = got == 0;  // nothing decrypted is left: wait for the socket
  }
  while (n > 0) {
    if (wait) SPILLWAY_RETURN_IF_ERROR(await_bytes(deadline));
    const ssize_t r = ::recv(fd_, dst, n, MSG_DONTWAIT);
    if (r > 0) {
      dst += r;
      n -= static_cast<std::size_t>(r);
      wait = true;  // a short read emptied the socket: wait before the next
      continue;
    }
    if (r == 0) return fail(ErrorCode::kNotConnected, "broker closed the connection");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      wait = true;
      continue;
    }
    return fail(ErrorCode::kNotConnected, std::string("read failed: ") + std::strerror(errno));
  }
  return Status::Ok();
}

Status Channel::read_header(Deadline deadline, frame::ResponseHeader* header) {
  if (fd_ < 0) return Status(ErrorCode::kNotConnected, address_ + ": connection is closed");
  std::byte bytes[frame::kResponseHeaderBytes];
  SPILLWAY_RETURN_IF_ERROR(read_exactly(bytes, sizeof(bytes), deadline));
  Status st = frame::decode_response_header(
      std::span<const std::byte, frame::kResponseHeaderBytes>(bytes, sizeof(bytes)),
      options_.max_response_bytes, header);
  return st.ok() ? st : fail(st.code(), st.message());
}

Result<Response> Channel::read_response() {
  return read_response(options_.request_timeout);
}

Result<Response> Channel::read_response(std::chrono::milliseconds timeout) {
  const Deadline deadline{Clock::now() + timeout, timeout};
  frame::ResponseHeader h;
  SPILLWAY_RETURN_IF_ERROR(read_header(deadline, &h));
  if (h.body_bytes > capacity_) {
    // Grows to the largest response seen, then is reused.
    buffer_ = std::make_unique_for_overwrite<std::byte[]>(h.body_bytes);
    capacity_ = h.body_bytes;
  }
  if (h.body_bytes > 0)
    SPILLWAY_RETURN_IF_ERROR(read_exactly(buffer_.get(), h.body_bytes, deadline));
  return Response{.correlation_id = h.correlation_id,
                  .error = h.error_code,
                  .body = {buffer_.get(), h.body_bytes}};
}

Result<std::vector<std::byte>> Channel::exchange(WriteBuffer& request, int32_t correlation_id,
                                                 std::chrono::milliseconds timeout) {
  SPILLWAY_RETURN_IF_ERROR(send(request));
  const Deadline deadline{Clock::now() + timeout, timeout};
  frame::ResponseHeader h;
  SPILLWAY_RETURN_IF_ERROR(read_header(deadline, &h));
  if (h.correlation_id != correlation_id) {
    return fail(ErrorCode::kCorruptMessage,
                "response correlation id " + std::to_string(h.correlation_id) +
                    " does not match request " + std::to_string(correlation_id));
  }
  std::vector<std::byte> body(h.body_bytes);
  if (!body.empty()) SPILLWAY_RETURN_IF_ERROR(read_exactly(body.data(), body.size(), deadline));
  if (h.error_code != ErrorCode::kOk) return frame::decode_error_body(h.error_code, body);
  return body;
}

void Channel::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return;
  buffer_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
  capacity_ = bytes;
}

bool Channel::has_buffered_input() const noexcept {
  return fd_ >= 0 && tls_ && tls_->pending();
}

bool Channel::wait_readable(std::chrono::milliseconds timeout, int wake_fd) noexcept {
  if (fd_ < 0) return false;
  if (tls_ && tls_->pending()) return true;
  pollfd p[2] = {{fd_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
  const int r = ::poll(p, wake_fd >= 0 ? 2 : 1, static_cast<int>(timeout.count()));
  return r > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

}  // namespace spillway::wire
