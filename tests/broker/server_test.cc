// The network server in-process: concurrent clients spread over threads,
// graceful stop with connections open, max_connections, over the client
// library (so the two sides are tested against each other).
#include "net/server.h"

#include <gtest/gtest.h>

#include <thread>

#include "protocol/api_versions_handler.h"
#include "spillway/admin.h"

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

}  // namespace
}  // namespace spillway::broker
