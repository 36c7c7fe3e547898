// The api-key dispatch table and the ApiVersions handler, without sockets.
#include "protocol/dispatcher.h"

#include <gtest/gtest.h>

#include "protocol/api_versions_handler.h"

namespace spillway::broker {
namespace {

struct Decoded {
  frame::ResponseHeader header;
  std::span<const std::byte> body;
};

Decoded decode(const std::vector<std::byte>& frame_bytes) {
  Decoded d;
  EXPECT_GE(frame_bytes.size(), frame::kResponseHeaderBytes);
  EXPECT_TRUE(frame::decode_response_header(
                  std::span(frame_bytes).first<frame::kResponseHeaderBytes>(), 1 << 20, &d.header)
                  .ok());
  d.body = std::span(frame_bytes).subspan(frame::kResponseHeaderBytes);
  EXPECT_EQ(d.body.size(), d.header.body_bytes);
  return d;
}

frame::RequestHeader header(int16_t key, int16_t version, int32_t correlation_id) {
  return frame::RequestHeader{key, version, correlation_id, 0};
}

TEST(Dispatcher, RoutesByKeyAndFramesTheBody) {
  Dispatcher dispatcher;
  int calls = 0;
  dispatcher.add(frame::ApiKey::kMetadata, 0, 2,
                 [&](const Request& request, std::vector<std::byte>& out) {
                   ++calls;
                   EXPECT_EQ(request.header.api_version, 1);
                   EXPECT_EQ(request.body.size(), 2u);
                   out.push_back(std::byte{0xab});
                   return Status::Ok();
                 });
  std::vector<std::byte> out;
  const std::array<std::byte, 2> body{};
  dispatcher.dispatch(header(3, 1, 55), body, out);
  EXPECT_EQ(calls, 1);
  Decoded d = decode(out);
  EXPECT_EQ(d.header.correlation_id, 55);
  EXPECT_EQ(d.header.error_code, ErrorCode::kOk);
  ASSERT_EQ(d.body.size(), 1u);
  EXPECT_EQ(d.body[0], std::byte{0xab});
}

TEST(Dispatcher, HandlerErrorBecomesAnErrorResponseAndDropsPartialBody) {
  Dispatcher dispatcher;
  dispatcher.add(frame::ApiKey::kFetch, 0, 0, [](const Request&, std::vector<std::byte>& out) {
    out.resize(out.size() + 100);
    return Status(ErrorCode::kOffsetOutOfRange, "offset 9 is past the end");
  });
  std::vector<std::byte> out;
  dispatcher.dispatch(header(2, 0, 8), {}, out);
  Decoded d = decode(out);
  EXPECT_EQ(d.header.error_code, ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(frame::decode_error_body(d.header.error_code, d.body).message(),
            "offset 9 is past the end");
}

TEST(Dispatcher, UnknownKeysAndVersionsGetUnsupportedVersion) {
  Dispatcher dispatcher;
  add_api_versions_handler(dispatcher, "spillway-broker test");
  std::vector<std::byte> out;
  for (int16_t key : {int16_t{1}, int16_t{63}, int16_t{64}, int16_t{-5}, int16_t{32767}}) {
    dispatcher.dispatch(header(key, 0, key), {}, out);
    Decoded d = decode(out);
    EXPECT_EQ(d.header.correlation_id, key);
    EXPECT_EQ(d.header.error_code, ErrorCode::kUnsupportedVersion) << key;
    EXPECT_EQ(frame::decode_error_body(d.header.error_code, d.body).message(),
              "unknown api key " + std::to_string(key));
  }
  dispatcher.dispatch(header(0, 1, 4), {}, out);
  Decoded d = decode(out);
  EXPECT_EQ(d.header.error_code, ErrorCode::kUnsupportedVersion);
}

TEST(ApiVersionsHandler, ListsWhatTheDispatcherServes) {
  Dispatcher dispatcher;
  add_api_versions_handler(dispatcher, "spillway-broker test");
  dispatcher.add(frame::ApiKey::kProduce, 1, 3,
                 [](const Request&, std::vector<std::byte>&) { return Status::Ok(); });
  std::vector<std::byte> request_body;
  encode_api_versions_request("unit-test", request_body);
  std::vector<std::byte> out;
  dispatcher.dispatch(header(0, 0, 1), request_body, out);
  Decoded d = decode(out);
  ASSERT_EQ(d.header.error_code, ErrorCode::kOk);
  Result<ApiVersionsResponse> response = decode_api_versions_response(d.body);
  ASSERT_TRUE(response.ok()) << response.status().to_string();
  EXPECT_EQ(response->broker_version, "spillway-broker test");
  ASSERT_EQ(response->apis.size(), 2u);
  EXPECT_EQ(response->apis[0].api_key, 0);
  EXPECT_EQ(response->apis[1].api_key, 1);
  EXPECT_EQ(response->apis[1].min_version, 1);
  EXPECT_EQ(response->apis[1].max_version, 3);
}

TEST(ApiVersionsHandler, MalformedRequestBodyIsCorrupt) {
  Dispatcher dispatcher;
  add_api_versions_handler(dispatcher, "v");
  const std::array<std::byte, 1> body{};
  std::vector<std::byte> out;
  dispatcher.dispatch(header(0, 0, 1), body, out);
  EXPECT_EQ(decode(out).header.error_code, ErrorCode::kCorruptMessage);
}

}  // namespace
}  // namespace spillway::broker
