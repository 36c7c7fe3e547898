// The native frame header codec (common/src/frame.cc) and the ApiVersions
// body codec: byte layout as docs/protocol.md gives it, limits checked before
// anything is sized, malformed input rejected.
#include "spillway/common/frame.h"
#include "spillway/common/wire/primitives.h"

#include <gtest/gtest.h>

#include <array>

#include "spillway/common/api_versions.h"

namespace spillway::frame {
namespace {

std::byte b(int v) {
  return static_cast<std::byte>(v);
}

TEST(FrameHeader, RequestLayoutIsBigEndianWithLengthCountingTheRest) {
  std::array<std::byte, kRequestHeaderBytes> out{};
  encode_request_header({0x0102, 0x0304, 0x05060708, 20}, out);
  const std::array<std::byte, kRequestHeaderBytes> expected = {
      b(0), b(0), b(0), b(28),  // length: 8 header bytes + 20 body bytes
      b(1), b(2), b(3), b(4),   // api key, api version
      b(5), b(6), b(7), b(8)};  // correlation id
  EXPECT_EQ(out, expected);

  RequestHeader decoded;
  ASSERT_TRUE(decode_request_header(out, 1 << 20, &decoded).ok());
  EXPECT_EQ(decoded.api_key, 0x0102);
  EXPECT_EQ(decoded.api_version, 0x0304);
  EXPECT_EQ(decoded.correlation_id, 0x05060708);
  EXPECT_EQ(decoded.body_bytes, 20u);
}

TEST(FrameHeader, RequestLimitIsInclusiveAndCheckedOnTheLengthField) {
  std::array<std::byte, kRequestHeaderBytes> out{};
  RequestHeader decoded;
  encode_request_header({0, 0, 9, 1000 - kMinRequestLength}, out);
  EXPECT_TRUE(decode_request_header(out, 1000, &decoded).ok());
  EXPECT_EQ(decoded.body_bytes, 1000 - kMinRequestLength);

  encode_request_header({0, 0, 9, 1001 - kMinRequestLength}, out);
  Status st = decode_request_header(out, 1000, &decoded);
  EXPECT_EQ(st.code(), ErrorCode::kFrameTooLarge);
  EXPECT_EQ(decoded.correlation_id, 9);  // still decoded, for the error response
  EXPECT_EQ(decoded.body_bytes, 0u);
}

TEST(FrameHeader, HugeAndShortLengthsAreRejected) {
  std::array<std::byte, kRequestHeaderBytes> in{};
  in[0] = in[1] = in[2] = in[3] = b(0xff);
  RequestHeader decoded;
  EXPECT_EQ(decode_request_header(in, UINT32_MAX - 1, &decoded).code(), ErrorCode::kFrameTooLarge);
  for (int length = 0; length < static_cast<int>(kMinRequestLength); ++length) {
    in = {};
    in[3] = b(length);
    EXPECT_EQ(decode_request_header(in, 1 << 20, &decoded).code(), ErrorCode::kCorruptMessage)
        << length;
  }
  in = {};
  in[3] = b(kMinRequestLength);  // an empty body is fine
  EXPECT_TRUE(decode_request_header(in, 1 << 20, &decoded).ok());
  EXPECT_EQ(decoded.body_bytes, 0u);
}

TEST(FrameHeader, ResponseRoundTripAndLimits) {
  std::array<std::byte, kResponseHeaderBytes> out{};
  encode_response_header({-7, ErrorCode::kTimeout, 3}, out);
  const std::array<std::byte, kResponseHeaderBytes> expected = {
      b(0), b(0), b(0), b(9), b(0xff), b(0xff), b(0xff), b(0xf9), b(0), b(15)};
  EXPECT_EQ(out, expected);
  ResponseHeader decoded;
  ASSERT_TRUE(decode_response_header(out, 9, &decoded).ok());
  EXPECT_EQ(decoded.correlation_id, -7);
  EXPECT_EQ(decoded.error_code, ErrorCode::kTimeout);
  EXPECT_EQ(decoded.body_bytes, 3u);
  EXPECT_EQ(decode_response_header(out, 8, &decoded).code(), ErrorCode::kFrameTooLarge);
  out[3] = b(5);
  EXPECT_EQ(decode_response_header(out, 100, &decoded).code(), ErrorCode::kCorruptMessage);
}

TEST(FrameHeader, ErrorResponseCarriesCodeAndMessage) {
  std::array<std::byte, kMaxErrorFrameBytes> out{};
  const size_t n = encode_error_response(31, ErrorCode::kFrameTooLarge, "too big", out);
  ASSERT_EQ(n, kResponseHeaderBytes + 2 + 7);
  ResponseHeader header;
  ASSERT_TRUE(
      decode_response_header(std::span(out).first<kResponseHeaderBytes>(), 1 << 20, &header).ok());
  EXPECT_EQ(header.correlation_id, 31);
  EXPECT_EQ(header.error_code, ErrorCode::kFrameTooLarge);
  ASSERT_EQ(header.body_bytes, n - kResponseHeaderBytes);
  Status st = decode_error_body(header.error_code,
                                std::span(out).subspan(kResponseHeaderBytes, header.body_bytes));
  EXPECT_EQ(st.code(), ErrorCode::kFrameTooLarge);
  EXPECT_EQ(st.message(), "too big");
}

TEST(FrameHeader, LongErrorMessagesAreCut) {
  std::array<std::byte, kMaxErrorFrameBytes> out{};
  const std::string message(5000, 'x');
  EXPECT_EQ(encode_error_response(1, ErrorCode::kUnknown, message, out), kMaxErrorFrameBytes);
  Status st = decode_error_body(ErrorCode::kUnknown, std::span(out).subspan(kResponseHeaderBytes));
  EXPECT_EQ(st.message().size(), kMaxErrorMessageBytes);
}

TEST(FrameHeader, MalformedErrorBodiesAreCorrupt) {
  const std::array<std::byte, 3> lying = {b(0), b(5), b('a')};  // claims 5, has 1
  EXPECT_EQ(decode_error_body(ErrorCode::kTimeout, lying).code(), ErrorCode::kCorruptMessage);
  const std::array<std::byte, 4> trailing = {b(0), b(1), b('a'), b('b')};
  EXPECT_EQ(decode_error_body(ErrorCode::kTimeout, trailing).code(), ErrorCode::kCorruptMessage);
}

TEST(WireReader, FailsOnceAndStaysFailed) {
  const std::array<std::byte, 3> bytes = {b(0), b(7), b(1)};
  wire::WireReader reader(bytes);
  EXPECT_EQ(reader.i16(), 7);
  EXPECT_EQ(reader.i16(), 0);  // only one byte left
  EXPECT_FALSE(reader.ok());
  EXPECT_EQ(reader.remaining(), 0u);
}

TEST(ApiNames, KnownAndUnknownKeys) {
  EXPECT_STREQ(api_name(0), "ApiVersions");
  EXPECT_STREQ(api_name(static_cast<int16_t>(ApiKey::kFetch)), "Fetch");
  EXPECT_EQ(api_name(999), nullptr);
  EXPECT_EQ(api_name(-1), nullptr);
}

}  // namespace
}  // namespace spillway::frame

namespace spillway {
namespace {

TEST(ApiVersionsCodec, RequestRoundTrip) {
  std::vector<std::byte> body;
  encode_api_versions_request("spillway-cli 0.1.0", body);
  Result<std::string_view> decoded = decode_api_versions_request(body);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, "spillway-cli 0.1.0");
  body.push_back(std::byte{0});
  EXPECT_EQ(decode_api_versions_request(body).status().code(), ErrorCode::kCorruptMessage);
}

TEST(ApiVersionsCodec, ResponseRoundTrip) {
  ApiVersionsResponse response{"spillway-broker 9.9.9", {{0, 0, 0}, {1, 2, 5}}};
  std::vector<std::byte> body;
  encode_api_versions_response(response, body);
  Result<ApiVersionsResponse> decoded = decode_api_versions_response(body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->broker_version, "spillway-broker 9.9.9");
  ASSERT_EQ(decoded->apis.size(), 2u);
  EXPECT_EQ(decoded->apis[1].api_key, 1);
  EXPECT_EQ(decoded->apis[1].min_version, 2);
  EXPECT_EQ(decoded->apis[1].max_version, 5);
}

TEST(ApiVersionsCodec, LyingCountIsRejectedWithoutReserving) {
  ApiVersionsResponse response{"v", {{0, 0, 0}}};
  std::vector<std::byte> body;
  encode_api_versions_response(response, body);
  // Count field sits after the string: [u16 1]['v'][i32 count].
  body[3] = body[4] = body[5] = std::byte{0x7f};
  EXPECT_EQ(decode_api_versions_response(body).status().code(), ErrorCode::kCorruptMessage);
  body[3] = body[4] = body[5] = body[6] = std::byte{0xff};  // -1
  EXPECT_EQ(decode_api_versions_response(body).status().code(), ErrorCode::kCorruptMessage);
  // Every truncation is rejected.
  encode_api_versions_response(response, body = {});
  for (size_t n = 0; n < body.size(); ++n) {
    EXPECT_FALSE(decode_api_versions_response(std::span(body).first(n)).ok()) << n;
  }
}

}  // namespace
}  // namespace spillway
