// A Kafka-protocol client for integration tests that speak to the broker's
// Kafka listener by hand: frames a request (INT32 size, request header v1 or
// v2 as the api version requires, body) and reads a response (size,
// correlation id, the v1 header's tag buffer when flexible, body). Bodies are
// encoded and decoded with the same message descriptions the broker uses
// (common/kafka/*.h), so a test states a request as a struct. Anything can
// also be sent as raw bytes, for malformed-input tests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "raw_client.h"
#include "spillway/common/endian.h"
#include "spillway/common/kafka/header.h"
#include "spillway/common/write_buffer.h"

namespace spillway::testing {

class KafkaWireClient {
 public:
  explicit KafkaWireClient(uint16_t port) : raw_(port) {}

  bool connected() const { return raw_.connected(); }
  RawClient& raw() { return raw_; }

  // Writes `write(WriteBuffer&)`'s output as bytes.
  template <typename Write>
  static std::vector<std::byte> written(Write write) {
    std::array<std::byte, 256> scratch;
    WriteBuffer out{std::span<std::byte>(scratch)};
    if (!write(out).ok()) return {};
    std::vector<std::byte> bytes(out.bytes_written());
    out.copy_to(bytes);
    return bytes;
  }

  // The request header (v1 or v2, per api key and version), without the
  // size prefix.
  static std::vector<std::byte> header(int16_t api_key, int16_t version, int32_t correlation_id,
                                       std::optional<std::string_view> client_id = "kafka-test") {
    const kafka::RequestHeader h{api_key, version, correlation_id, client_id};
    return written([&](WriteBuffer& out) {
      return kafka::encode_request_header(h, kafka::request_header_version(api_key, version), out);
    });
  }

  // Sends INT32 size + `header` + `body` as they are.
  bool send_frame(std::span<const std::byte> header_bytes, std::span<const std::byte> body) {
    std::array<std::byte, 4> size;
    store_be<uint32_t>(size.data(), static_cast<uint32_t>(header_bytes.size() + body.size()));
    return raw_.send_bytes(size) && raw_.send_bytes(header_bytes) && raw_.send_bytes(body);
  }

  // Sends `request` (a described Kafka request) at `version`.
  template <typename Request>
  bool send(const Request& request, int16_t version, int32_t correlation_id) {
    const std::vector<std::byte> body = written([&](WriteBuffer& out) {
      return wire::encode(request, kafka::context<Request>(version), out);
    });
    return send_frame(header(static_cast<int16_t>(Request::kApiKey), version, correlation_id),
                      body);
  }

  struct Response {
    int32_t correlation_id = 0;
    std::vector<std::byte> body;  // after the response header
  };

  // Reads one response to `api_key`/`version` (which decide the response
  // header's version); nullopt on EOF, error or timeout.
  std::optional<Response> read(int16_t api_key, int16_t version) {
    std::array<std::byte, 4> size_bytes;
    if (!read_exactly(raw_.fd(), size_bytes.data(), 4)) return std::nullopt;
    const uint32_t size = load_be<uint32_t>(size_bytes.data());
    if (size < 4 || size > (64u << 20)) return std::nullopt;
    std::vector<std::byte> frame(size);
    if (!read_exactly(raw_.fd(), frame.data(), size)) return std::nullopt;
    Response response;
    response.correlation_id = load_be<int32_t>(frame.data());
    size_t at = 4;
    if (kafka::response_header_version(api_key, version) == 1) {
      if (frame.size() < 5 || frame[4] != std::byte{0}) return std::nullopt;  // empty tag buffer
      at = 5;
    }
    response.body.assign(frame.begin() + static_cast<ptrdiff_t>(at), frame.end());
    return response;
  }

  // A whole round trip: sends `request`, reads and decodes its response
  // (which views `last_.body`, valid until the next call).
  template <typename ResponseType, typename Request>
  Result<ResponseType> call(const Request& request, int16_t version) {
    const int32_t correlation_id = next_correlation_id_++;
    if (!send(request, version, correlation_id)) {
      return Status(ErrorCode::kIoError, "send failed");
    }
    std::optional<Response> r = read(static_cast<int16_t>(Request::kApiKey), version);
    if (!r) return Status(ErrorCode::kIoError, "no response (connection closed or timed out)");
    if (r->correlation_id != correlation_id) {
      return Status(ErrorCode::kCorruptMessage, "response to another correlation id");
    }
    last_ = std::move(*r);
    return wire::decode<ResponseType>(last_.body, kafka::context<ResponseType>(version), "test");
  }

 private:
  RawClient raw_;
  int32_t next_correlation_id_ = 1;
  Response last_;
};

}  // namespace spillway::testing
