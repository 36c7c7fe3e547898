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

#include <algorithm>
#include <mutex>
#include <thread>

#include "protocol/api_versions_handler.h"
#include "socket_io.h"
#include "spillway/admin.h"
#include "spillway/common/api_versions.h"
#include "spillway/common/buffer_pool.h"

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

  // A plain socket connected to the server, for requests written by hand;
  // -1 if it cannot connect.
  int connect_raw() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{10, 0};  // a guard against hanging, never an assertion
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(server_->local_endpoint().port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
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
  const int fd = connect_raw();
  ASSERT_GE(fd, 0);
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

// Adopts every request body it can (as the produce handlers do for a
// request of one batch) and keeps the buffers until the test ends, noting
// each body's first byte and whether its buffer was adopted.
class AdoptingHandler final : public Handler {
 public:
  struct Seen {
    std::byte first{};
    size_t size = 0;
    std::byte* adopted = nullptr;
    bool intact = false;  // every byte of the body was `first`
  };
  ~AdoptingHandler() override {
    for (const Seen& s : seen)
      if (s.adopted != nullptr) BufferPool::global().give_back(s.adopted);
  }
  void handle(Exchange& exchange) override {
    const std::span<const std::byte> body = exchange.body();
    Seen s;
    s.size = body.size();
    s.first = body.empty() ? std::byte{} : body[0];
    s.intact = std::all_of(body.begin(), body.end(), [&](std::byte b) { return b == s.first; });
    s.adopted = exchange.adopt_body();
    if (s.adopted != nullptr) {
      // The body lies in the adopted buffer, which nothing else frees now.
      EXPECT_TRUE(exchange.body_adopted());
      EXPECT_EQ(body.data(), s.adopted);
      EXPECT_EQ(exchange.adopt_body(), nullptr);  // once only
      EXPECT_TRUE(exchange.body_adopted());
    }
    {
      std::lock_guard lock(mu);
      seen.push_back(s);
    }
    exchange.finish(Status::Ok());
  }
  std::mutex mu;
  std::vector<Seen> seen;
};

TEST_F(ServerTest, AHandlerMayAdoptABodyReadIntoItsOwnBufferAndTheConnectionReadsOnIntoAnother) {
  AdoptingHandler adopting;
  dispatcher_.add(frame::ApiKey::kProduce, 0, 0, &adopting);
  start(1);
  const int fd = connect_raw();
  ASSERT_GE(fd, 0);
  // Bodies larger than the connection's 4 KiB read buffer get a buffer of
  // their own (adoptable); small ones are cut out of the read buffer,
  // shared with the frames after them (not adoptable). Sent in one write,
  // so the small ones arrive beside other frames.
  const std::array<size_t, 6> sizes = {20'000, 100, 70'000, 20'000, 10, 300'000};
  std::vector<std::byte> bytes;
  std::array<std::byte, frame::kRequestHeaderBytes> header;
  for (size_t i = 0; i < sizes.size(); ++i) {
    frame::encode_request_header({static_cast<int16_t>(frame::ApiKey::kProduce), 0,
                                  static_cast<int32_t>(i), static_cast<uint32_t>(sizes[i])},
                                 header);
    bytes.insert(bytes.end(), header.begin(), header.end());
    bytes.insert(bytes.end(), sizes[i], static_cast<std::byte>('a' + i));
  }
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::array<std::byte, frame::kResponseHeaderBytes> response_bytes;
    ASSERT_TRUE(testing::read_exactly(fd, response_bytes.data(), response_bytes.size()));
    frame::ResponseHeader response;
    ASSERT_TRUE(frame::decode_response_header(response_bytes, 1 << 20, &response).ok());
    EXPECT_EQ(response.correlation_id, static_cast<int32_t>(i));
    EXPECT_EQ(response.error_code, ErrorCode::kOk);
  }
  ::close(fd);
  std::lock_guard lock(adopting.mu);
  ASSERT_EQ(adopting.seen.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    const AdoptingHandler::Seen& s = adopting.seen[i];
    EXPECT_EQ(s.size, sizes[i]);
    EXPECT_EQ(s.first, static_cast<std::byte>('a' + i)) << i;
    EXPECT_TRUE(s.intact) << i;
    EXPECT_EQ(s.adopted != nullptr, sizes[i] > 4096) << i;
  }
  // Every adopted buffer still holds its own body: the connection neither
  // gave one back nor read the next body into it.
  for (size_t i = 0; i < sizes.size(); ++i) {
    const AdoptingHandler::Seen& s = adopting.seen[i];
    if (s.adopted == nullptr) continue;
    const std::byte want = static_cast<std::byte>('a' + i);
    EXPECT_TRUE(std::all_of(s.adopted, s.adopted + s.size, [&](std::byte b) { return b == want; }))
        << i << i;
  }
}

}  // namespace
}  // namespace spillway::broker
