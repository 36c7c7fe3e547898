// The network server in-process: concurrent clients spread over threads,
// graceful stop with connections open, max_connections, over the client
// library (so the two sides are tested against each other).
#include "net/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <thread>

#include "protocol/api_versions_handler.h"
#include "socket_io.h"
#include "spillway/admin.h"
#include "spillway/common/api_versions.h"

namespace spillway::broker {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  void start(size_t threads, ServerOptions options = {}) {
    dispatcher_.add(frame::ApiKey::kApiVersions, 0, 0, &api_versions_);
    options.listeners.push_back(
        {.name = "test", .address = HostPort{"127.0.0.1", 0}, .dispatcher = &dispatcher_});
    options.handle_signals = false;
    cores_ = std::make_unique<CoreSet>(threads);
    server_ = std::make_unique<Server>(*cores_, options);
    ASSERT_TRUE(server_->open().ok());
    address_ = "127.0.0.1:" + std::to_string(server_->local_endpoint().port());
    runner_ = std::thread([this] { server_->run(); });
  }

  void TearDown() override {
    if (server_) server_->stop();
    if (runner_.joinable()) runner_.join();
  }

  Dispatcher dispatcher_;
  ApiVersionsHandler api_versions_{dispatcher_, "spillway-broker server-test"};
  std::unique_ptr<CoreSet> cores_;
  std::unique_ptr<Server> server_;
  std::thread runner_;
  std::string address_;
};

TEST_F(ServerTest, ManyConcurrentClientsOverSeveralThreads) {
  start(3);
  constexpr int kClients = 12;
  constexpr int kRequests = 50;
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      Result<Admin> admin = Admin::connect(address_);
      if (!admin.ok()) return;
      for (int i = 0; i < kRequests; ++i) {
        Result<ApiVersionsResponse> r = admin->api_versions();
        if (r.ok() && r->broker_version == "spillway-broker server-test") ++ok;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok.load(), kClients * kRequests);
}

TEST_F(ServerTest, StopClosesIdleConnectionsAndRunReturns) {
  start(2);
  Result<Admin> a = Admin::connect(address_);
  Result<Admin> b = Admin::connect(address_);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->api_versions().ok());
  server_->stop();
  runner_.join();  // returns although both connections stay open client-side
  Result<ApiVersionsResponse> after = b->api_versions();
  EXPECT_FALSE(after.ok());
  EXPECT_EQ(after.status().code(), ErrorCode::kNotConnected);
  EXPECT_FALSE(Admin::connect(address_).ok());  // no longer accepting
}

TEST_F(ServerTest, AtTheConnectionLimitTheLongestIdleMakesRoom) {
  start(1, {.max_connections = 2});
  Result<Admin> a = Admin::connect(address_);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a->api_versions().ok());
  Result<Admin> b = Admin::connect(address_);
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(b->api_versions().ok());
  // c is served: a, idle longest, was closed for it.
  Result<Admin> c = Admin::connect(address_);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->api_versions().ok());
  EXPECT_EQ(a->api_versions().status().code(), ErrorCode::kNotConnected);
  EXPECT_TRUE(b->api_versions().ok());
  EXPECT_EQ(server_->open_connections(), 2u);
}

TEST_F(ServerTest, ClientLimitOnResponseSizeIsEnforced) {
  start(1);
  ConnectionOptions options;
  options.max_response_bytes = 8;  // smaller than any ApiVersions response
  Result<Admin> admin = Admin::connect(address_, options);
  ASSERT_TRUE(admin.ok());
  Result<ApiVersionsResponse> r = admin->api_versions();
  EXPECT_EQ(r.status().code(), ErrorCode::kFrameTooLarge);
  EXPECT_FALSE(admin->connection().is_open());
}

// Answers nothing, as Kafka's Produce with acks=0 does.
class SilentHandler final : public Handler {
 public:
  void handle(Exchange& exchange) override { exchange.finish_without_response(); }
};

TEST_F(ServerTest, ARequestFinishedWithoutResponseWritesNothingAndFreesItsSlot) {
  SilentHandler silent;
  dispatcher_.add(frame::ApiKey::kFetch, 0, 0, &silent);
  start(1);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{10, 0};  // a guard against hanging, never an assertion
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server_->local_endpoint().port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  // More silent requests than a connection may have in flight: each frees
  // its place in the ring although nothing is written for it.
  std::vector<std::byte> bytes;
  std::array<std::byte, frame::kRequestHeaderBytes> header;
  for (int32_t i = 0; i < 300; ++i) {
    frame::encode_request_header({static_cast<int16_t>(frame::ApiKey::kFetch), 0, i, 0}, header);
    bytes.insert(bytes.end(), header.begin(), header.end());
  }
  std::vector<std::byte> body;
  encode_api_versions_request("server-test", body);
  frame::encode_request_header({static_cast<int16_t>(frame::ApiKey::kApiVersions), 0, 1000,
                                static_cast<uint32_t>(body.size())},
                               header);
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), body.begin(), body.end());
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
  // The first response on the connection is the ApiVersions one.
  std::array<std::byte, frame::kResponseHeaderBytes> response_bytes;
  ASSERT_TRUE(testing::read_exactly(fd, response_bytes.data(), response_bytes.size()));
  frame::ResponseHeader response;
  ASSERT_TRUE(frame::decode_response_header(response_bytes, 1 << 20, &response).ok());
  EXPECT_EQ(response.correlation_id, 1000);
  EXPECT_EQ(response.error_code, ErrorCode::kOk);
  ::close(fd);
}

}  // namespace
}  // namespace spillway::broker
