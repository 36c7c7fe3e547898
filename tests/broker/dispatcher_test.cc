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

// A handler made of a function (the tests' own handlers).
template <typename F>
class FunctionHandler final : public Handler {
 public:
  explicit FunctionHandler(F f) : f_(std::move(f)) {}
  void handle(Exchange& exchange) override { f_(exchange); }

 private:
  F f_;
};

// Runs `request` through `dispatcher` on an exchange, as a connection does,
// and returns the response frame. The handlers here finish at once.
std::vector<std::byte> run(const Dispatcher& dispatcher, frame::RequestHeader request,
                           std::span<const std::byte> body) {
  asio::io_context context;
  Exchange exchange;
  request.body_bytes = static_cast<uint32_t>(body.size());
  exchange.reset({.header = request, .body = body, .context = &context});
  dispatcher.dispatch(exchange);
  EXPECT_TRUE(exchange.finished());
  std::vector<std::byte> out;
  for (const iovec& v : exchange.frame_segments()) {
    const auto* p = static_cast<const std::byte*>(v.iov_base);
    out.insert(out.end(), p, p + v.iov_len);
  }
  exchange.recycle();
  return out;
}

TEST(Dispatcher, RoutesByKeyAndFramesTheBody) {
  Dispatcher dispatcher;
  int calls = 0;
  FunctionHandler handler([&](Exchange& exchange) {
    ++calls;
    EXPECT_EQ(exchange.header().api_version, 1);
    EXPECT_EQ(exchange.body().size(), 2u);
    const std::byte ab{0xab};
    exchange.finish(exchange.out().write({&ab, 1}));
  });
  dispatcher.add(frame::ApiKey::kMetadata, 0, 2, &handler);
  const std::array<std::byte, 2> body{};
  std::vector<std::byte> out = run(dispatcher, header(3, 1, 55), body);
  EXPECT_EQ(calls, 1);
  Decoded d = decode(out);
  EXPECT_EQ(d.header.correlation_id, 55);
  EXPECT_EQ(d.header.error_code, ErrorCode::kOk);
  ASSERT_EQ(d.body.size(), 1u);
  EXPECT_EQ(d.body[0], std::byte{0xab});
}

TEST(Dispatcher, HandlerErrorBecomesAnErrorResponseAndDropsPartialBody) {
  Dispatcher dispatcher;
  FunctionHandler handler([](Exchange& exchange) {
    const std::array<std::byte, 100> partial{};
    (void)exchange.out().write(partial);
    exchange.finish(Status(ErrorCode::kOffsetOutOfRange, "offset 9 is past the end"));
  });
  dispatcher.add(frame::ApiKey::kFetch, 0, 0, &handler);
  std::vector<std::byte> out = run(dispatcher, header(2, 0, 8), {});
  Decoded d = decode(out);
  EXPECT_EQ(d.header.error_code, ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(frame::decode_error_body(d.header.error_code, d.body).message(),
            "offset 9 is past the end");
}

TEST(Dispatcher, UnknownKeysAndVersionsGetUnsupportedVersion) {
  Dispatcher dispatcher;
  ApiVersionsHandler api_versions(dispatcher, "spillway-broker test");
  dispatcher.add(frame::ApiKey::kApiVersions, 0, 0, &api_versions);
  for (int16_t key : {int16_t{1}, int16_t{63}, int16_t{64}, int16_t{-5}, int16_t{32767}}) {
    std::vector<std::byte> out = run(dispatcher, header(key, 0, key), {});
    Decoded d = decode(out);
    EXPECT_EQ(d.header.correlation_id, key);
    EXPECT_EQ(d.header.error_code, ErrorCode::kUnsupportedVersion) << key;
    EXPECT_EQ(frame::decode_error_body(d.header.error_code, d.body).message(),
              "unknown api key " + std::to_string(key));
  }
  std::vector<std::byte> out = run(dispatcher, header(0, 1, 4), {});
  Decoded d = decode(out);
  EXPECT_EQ(d.header.error_code, ErrorCode::kUnsupportedVersion);
}

TEST(ApiVersionsHandler, ListsWhatTheDispatcherServes) {
  Dispatcher dispatcher;
  ApiVersionsHandler api_versions(dispatcher, "spillway-broker test");
  dispatcher.add(frame::ApiKey::kApiVersions, 0, 0, &api_versions);
  FunctionHandler produce([](Exchange& exchange) { exchange.finish(Status::Ok()); });
  dispatcher.add(frame::ApiKey::kProduce, 1, 3, &produce);
  std::vector<std::byte> request_body;
  encode_api_versions_request("unit-test", request_body);
  std::vector<std::byte> out = run(dispatcher, header(0, 0, 1), request_body);
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
  ApiVersionsHandler api_versions(dispatcher, "v");
  dispatcher.add(frame::ApiKey::kApiVersions, 0, 0, &api_versions);
  const std::array<std::byte, 1> body{};
  std::vector<std::byte> out = run(dispatcher, header(0, 0, 1), body);
  EXPECT_EQ(decode(out).header.error_code, ErrorCode::kCorruptMessage);
}

}  // namespace
}  // namespace spillway::broker
