// spillway::Connection against a scripted fake broker: request bytes on the
// wire, error responses, and every transport failure it must report.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <thread>

#include "scripted_broker.h"
#include "spillway/admin.h"
#include "spillway/common/api_versions.h"
#include "spillway/common/frame.h"

namespace spillway {
namespace {

using testing::read_request;
using testing::write_all;
using FakeBroker = testing::ScriptedBroker;

void send_response(int fd, int32_t correlation_id, std::span<const std::byte> body) {
  EXPECT_TRUE(testing::send_response(fd, correlation_id, body));
}

TEST(Connection, SendsAWellFormedApiVersionsRequestAndDecodesTheAnswer) {
  frame::RequestHeader seen;
  std::string client_id;
  FakeBroker fake([&](int fd) {
    auto [header, body] = read_request(fd);
    seen = header;
    auto id = decode_api_versions_request(body);
    if (id.ok()) client_id = std::string(*id);
    std::vector<std::byte> response;
    encode_api_versions_response({"fake 1.0", {{0, 0, 0}}}, response);
    send_response(fd, header.correlation_id, response);
  });
  ConnectionOptions options;
  options.client_id = "connection-test";
  Result<Admin> admin = Admin::connect(fake.address(), options);
  ASSERT_TRUE(admin.ok()) << admin.status().to_string();
  Result<PingReply> reply = admin->ping();
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->versions.broker_version, "fake 1.0");
  EXPECT_EQ(seen.api_key, 0);
  EXPECT_EQ(seen.api_version, 0);
  EXPECT_EQ(client_id, "connection-test");
}

TEST(Connection, ErrorResponseBecomesTheBrokersStatusAndConnectionStaysOpen) {
  FakeBroker fake([](int fd) {
    for (int i = 0; i < 2; ++i) {
      auto [header, body] = read_request(fd);
      std::array<std::byte, frame::kMaxErrorFrameBytes> out;
      const size_t n = frame::encode_error_response(header.correlation_id, ErrorCode::kUnknownTopic,
                                                    "no topic 'x'", out);
      EXPECT_TRUE(write_all(fd, std::span(out).first(n)));
    }
  });
  Result<Connection> c = Connection::connect(fake.address());
  ASSERT_TRUE(c.ok());
  for (int i = 0; i < 2; ++i) {
    auto r = c->request(frame::ApiKey::kMetadata, 0, {});
    EXPECT_EQ(r.status().code(), ErrorCode::kUnknownTopic);
    EXPECT_EQ(r.status().message(), "no topic 'x'");
    EXPECT_TRUE(c->is_open());
  }
}

TEST(Connection, MismatchedCorrelationIdIsCorruptAndCloses) {
  FakeBroker fake([](int fd) {
    auto [header, body] = read_request(fd);
    send_response(fd, header.correlation_id + 1, {});
  });
  Result<Connection> c = Connection::connect(fake.address());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->request(frame::ApiKey::kApiVersions, 0, {}).status().code(),
            ErrorCode::kCorruptMessage);
  EXPECT_FALSE(c->is_open());
  EXPECT_EQ(c->request(frame::ApiKey::kApiVersions, 0, {}).status().code(),
            ErrorCode::kNotConnected);
}

TEST(Connection, BrokerClosingMidResponseIsNotConnected) {
  FakeBroker fake([](int fd) {
    auto [header, body] = read_request(fd);
    std::array<std::byte, frame::kResponseHeaderBytes> h;
    frame::encode_response_header({header.correlation_id, ErrorCode::kOk, 100}, h);
    EXPECT_TRUE(write_all(fd, h));  // promises 100 bytes, sends none, closes
  });
  Result<Connection> c = Connection::connect(fake.address());
  ASSERT_TRUE(c.ok());
  auto r = c->request(frame::ApiKey::kApiVersions, 0, {});
  EXPECT_EQ(r.status().code(), ErrorCode::kNotConnected);
  EXPECT_NE(r.status().message().find("closed the connection"), std::string::npos)
      << r.status().message();
}

TEST(Connection, SilentBrokerTimesOut) {
  std::atomic<bool> release{false};
  FakeBroker fake([&](int fd) {
    read_request(fd);
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  ConnectionOptions options;
  options.request_timeout = std::chrono::milliseconds(50);
  Result<Connection> c = Connection::connect(fake.address(), options);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->request(frame::ApiKey::kApiVersions, 0, {}).status().code(), ErrorCode::kTimeout);
  EXPECT_FALSE(c->is_open());
  release = true;
}

TEST(Connection, NobodyListeningIsNotConnected) {
  uint16_t port = 0;
  {
    FakeBroker fake([](int) {});
    port = static_cast<uint16_t>(std::stoi(fake.address().substr(10)));
    // Connect once so the fake's accept returns and the port is released.
    ASSERT_TRUE(Connection::connect(fake.address()).ok());
  }
  Result<Connection> c = Connection::connect("127.0.0.1:" + std::to_string(port));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kNotConnected);
  EXPECT_NE(c.status().message().find("cannot connect to 127.0.0.1:"), std::string::npos);
}

TEST(Connection, MalformedAddressesAreInvalidArguments) {
  for (const char* bad : {"", "nocolon", ":9092", "127.0.0.1:"}) {
    EXPECT_EQ(Connection::connect(bad).status().code(), ErrorCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace spillway
