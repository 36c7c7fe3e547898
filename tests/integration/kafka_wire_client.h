// Test helper for the Kafka listener's integration tests: a RawClient that
// speaks Kafka's framing (INT32 size, request header v1 or v2 by the api
// version, response header v0 or v1) and encodes and decodes bodies through
// the message descriptions (common/kafka/*.h), so a test builds a request
// as a struct in any version and reads the response the same way.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "raw_client.h"
#include "spillway/common/endian.h"
#include "spillway/common/kafka/header.h"

namespace spillway::testing {

class KafkaWireClient : public RawClient {
 public:
  using RawClient::RawClient;

  // A response frame; decoded messages view `frame`, so keep it alive.
  struct Reply {
    std::vector<std::byte> frame;  // without the size prefix
    int32_t correlation_id = -1;
    std::span<const std::byte> body;
  };

  // Sends `request` in `version` with correlation id `correlation_id`.
  template <typename Request>
  bool send(const Request& request, int16_t version, int32_t correlation_id) {
    const auto key = static_cast<int16_t>(Request::kApiKey);
    std::array<std::byte, 256> scratch;
    WriteBuffer out{std::span<std::byte>(scratch)};
    const kafka::RequestHeader header{key, version, correlation_id, "kafka-wire-test"};
    if (!kafka::encode_request_header(header, kafka::request_header_version(key, version), out)
             .ok()) {
      return false;
    }
    if (!wire::encode(request, kafka::context<Request>(version), out).ok()) return false;
    std::vector<std::byte> frame(4 + out.bytes_written());
    store_be<uint32_t>(frame.data(), static_cast<uint32_t>(out.bytes_written()));
    out.copy_to(std::span<std::byte>(frame).subspan(4));
    return send_bytes(frame);
  }

  // Reads one response frame to a request of api `Response` in `version`;
  // nullopt on EOF, error or timeout.
  template <typename Response>
  std::optional<Reply> read(int16_t version) {
    std::array<std::byte, 4> size_bytes;
    if (!spillway::testing::read_exactly(fd(), size_bytes.data(), 4)) return std::nullopt;
    const uint32_t size = load_be<uint32_t>(size_bytes.data());
    if (size > (64u << 20)) return std::nullopt;
    Reply reply;
    reply.frame.resize(size);
    if (!spillway::testing::read_exactly(fd(), reply.frame.data(), size)) return std::nullopt;
    const auto key = static_cast<int16_t>(Response::kApiKey);
    auto header = kafka::decode_response_header(
        reply.frame, kafka::response_header_version(key, version), &reply.body);
    if (!header.ok()) return std::nullopt;
    reply.correlation_id = header->correlation_id;
    return reply;
  }

  // A round trip: sends `request` and decodes the response as `Response`
  // (the test fails when there is none or it does not decode). The
  // returned Response views `*reply`.
  template <typename Response, typename Request>
  Response call(const Request& request, int16_t version, Reply* reply) {
    const int32_t correlation_id = next_correlation_id_++;
    EXPECT_TRUE(send(request, version, correlation_id));
    std::optional<Reply> r = read<Response>(version);
    EXPECT_TRUE(r.has_value()) << "no response";
    if (!r) return Response{};
    EXPECT_EQ(r->correlation_id, correlation_id);
    *reply = std::move(*r);
    auto decoded =
        wire::decode<Response>(reply->body, kafka::context<Response>(version), "response");
    EXPECT_TRUE(decoded.ok()) << decoded.status().to_string();
    return decoded.ok() ? *decoded : Response{};
  }

 private:
  int32_t next_correlation_id_ = 1;
};

}  // namespace spillway::testing
