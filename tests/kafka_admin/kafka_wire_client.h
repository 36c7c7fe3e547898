// A Kafka client for tests that librdkafka cannot drive (old versions,
// OffsetForLeaderEpoch, requests with chosen fields): encodes a request
// from its message description (common/kafka/*.h), sends it with a request
// header and reads back the decoded response. The response views the
// client's buffer until the next call.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "spillway/common/kafka/header.h"
#include "spillway/common/status.h"
#include "spillway/common/wire/codec.h"
#include "spillway/common/write_buffer.h"

namespace spillway::testing {

class KafkaWireClient {
 public:
  explicit KafkaWireClient(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{10, 0};  // a guard against hanging, never an assertion
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~KafkaWireClient() { ::close(fd_); }
  KafkaWireClient(const KafkaWireClient&) = delete;
  KafkaWireClient& operator=(const KafkaWireClient&) = delete;

  bool connected() const { return connected_; }

  // Reads exactly `n` bytes; false on EOF, error or the receive timeout.
  bool read_fully(std::byte* dst, size_t n) {
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::recv(fd_, dst + got, n - got, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        last_errno_ = r == 0 ? 0 : errno;
        return false;
      }
      got += static_cast<size_t>(r);
    }
    return true;
  }

  // Sends `request` as version `version` and returns the response.
  template <typename Response, typename Request>
  Result<Response> call(const Request& request, int16_t version) {
    std::array<std::byte, 64> scratch;
    WriteBuffer out{std::span<std::byte>(scratch)};
    const int16_t key = static_cast<int16_t>(Request::kApiKey);
    kafka::RequestHeader header{.request_api_key = key,
                                .request_api_version = version,
                                .correlation_id = ++correlation_,
                                .client_id = "spillway-test"};
    SPILLWAY_RETURN_IF_ERROR(
        kafka::encode_request_header(header, kafka::request_header_version(key, version), out));
    SPILLWAY_RETURN_IF_ERROR(wire::encode(request, kafka::context<Request>(version), out));
    std::vector<std::byte> frame(4 + out.bytes_written());
    const uint32_t size = htonl(static_cast<uint32_t>(out.bytes_written()));
    std::memcpy(frame.data(), &size, 4);
    out.copy_to(std::span<std::byte>(frame).subspan(4));
    if (::send(fd_, frame.data(), frame.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(frame.size())) {
      return Status(ErrorCode::kNotConnected, "send failed");
    }
    uint32_t length = 0;
    if (!read_fully(reinterpret_cast<std::byte*>(&length), 4)) {
      return Status(ErrorCode::kNotConnected,
                    "no response: " + std::string(last_errno_ ? std::strerror(last_errno_)
                                                              : "connection closed"));
    }
    buffer_.resize(ntohl(length));
    if (!read_fully(buffer_.data(), buffer_.size())) {
      return Status(ErrorCode::kNotConnected, "truncated response");
    }
    std::span<const std::byte> body;
    Result<kafka::ResponseHeader> got =
        kafka::decode_response_header(buffer_, kafka::response_header_version(key, version), &body);
    if (!got.ok()) return got.status();
    if (got->correlation_id != correlation_) {
      return Status(ErrorCode::kCorruptMessage, "correlation id mismatch");
    }
    return wire::decode<Response>(body, kafka::context<Response>(version), "response");
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  int32_t correlation_ = 0;
  int last_errno_ = 0;
  std::vector<std::byte> buffer_;
};

}  // namespace spillway::testing
