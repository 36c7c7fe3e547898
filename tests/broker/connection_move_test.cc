// Connection affinity in-process (docs/architecture.md, "Connections move to
// their partitions' core"): a plaintext connection whose requests keep
// naming partitions of another core moves there, keeps its place in the
// connection limits, loses no byte it had sent, and answers in order.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <thread>
#include <vector>

#include "net/server.h"
#include "socket_io.h"
#include "spillway/common/frame.h"

namespace spillway::broker {
namespace {

using testing::read_exactly;

constexpr std::byte kNoPartition{0xff};
constexpr std::byte kBothCores{0xfe};

// The request body's one byte names the core whose partitions the request
// works on (kNoPartition: none, kBothCores: both); the response's one byte
// is the core the request was handled on.
class OwnerNamingHandler final : public Handler {
 public:
  explicit OwnerNamingHandler(CoreSet& cores) : cores_(cores) {}
  void handle(Exchange& exchange) override {
    const std::byte named = exchange.body().empty() ? kNoPartition : exchange.body()[0];
    if (named == kBothCores) {
      exchange.note_partition_owner(cores_.context(0));
      exchange.note_partition_owner(cores_.context(1));
    } else if (named != kNoPartition) {
      exchange.note_partition_owner(cores_.context(std::to_integer<size_t>(named)));
    }
    std::byte ran_on{0xee};
    for (size_t i = 0; i < cores_.size(); ++i) {
      if (&exchange.context() == &cores_.context(i)) ran_on = static_cast<std::byte>(i);
    }
    (void)exchange.out().write(std::span<const std::byte>(&ran_on, 1));
    exchange.finish(Status::Ok());
  }

 private:
  CoreSet& cores_;
};

class ConnectionMove : public ::testing::Test {
 protected:
  ConnectionMove() : handler_(cores_) {
    dispatcher_.add(frame::ApiKey::kMetadata, 0, 0, &handler_);
    ServerOptions options;
    options.listeners.push_back(
        {.name = "test", .address = HostPort{"127.0.0.1", 0}, .dispatcher = &dispatcher_});
    options.handle_signals = false;
    server_ = std::make_unique<Server>(cores_, options);
    EXPECT_TRUE(server_->open().ok());
    runner_ = std::thread([this] { server_->run(); });
    fd_ = connect_again();
  }
  ~ConnectionMove() override {
    if (fd_ >= 0) ::close(fd_);
    server_->stop();
    runner_.join();
  }

  // One request frame naming `core`'s partitions.
  static std::array<std::byte, frame::kRequestHeaderBytes + 1> request(int32_t id, std::byte core) {
    std::array<std::byte, frame::kRequestHeaderBytes + 1> bytes;
    frame::encode_request_header({static_cast<int16_t>(frame::ApiKey::kMetadata), 0, id, 1},
                                 std::span(bytes).first<frame::kRequestHeaderBytes>());
    bytes.back() = core;
    return bytes;
  }
  void send_bytes(std::span<const std::byte> bytes) {
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  }
  // Reads the response to request `id`; returns the core it ran on (-1 on error).
  int read_response(int32_t id) {
    std::array<std::byte, frame::kResponseHeaderBytes + 1> response;
    if (!read_exactly(fd_, response.data(), response.size())) return -1;
    frame::ResponseHeader h;
    if (!frame::decode_response_header(std::span(response).first<frame::kResponseHeaderBytes>(),
                                       1 << 20, &h)
             .ok() ||
        h.correlation_id != id || h.body_bytes != 1) {
      return -1;
    }
    return std::to_integer<int>(response.back());
  }
  // Sends request `id` naming `core` and waits for its answer.
  int call(int32_t id, std::byte core) {
    send_bytes(request(id, core));
    return read_response(id);
  }
  // Calls naming `core` (ids from *id on) until one runs there, at most
  // `limit`; returns how many it took, or -1. The move waits for a moment
  // with nothing in flight, which the client cannot see exactly: a request
  // sent right after an answer may still be served before the move.
  int calls_until_on(int32_t* id, std::byte core, int limit) {
    for (int n = 1; n <= limit; ++n) {
      const int ran_on = call((*id)++, core);
      if (ran_on < 0) return -1;
      if (ran_on == std::to_integer<int>(core)) return n;
    }
    return -1;
  }

  // Pings the connection: first_ is the core it is on, other_ the other.
  void find_cores() {
    first_ = call(1, kNoPartition);
    ASSERT_TRUE(first_ == 0 || first_ == 1);
    other_ = static_cast<std::byte>(1 - first_);
  }
  // Waits until the server counts `n` open connections; false after 5 s. A
  // closed connection is counted out when its core notices, with no event
  // to wait on, so this polls; the bound is a guard, not a timing.
  bool await_open_connections(size_t n) {
    for (int i = 0; i < 1000 && server_->open_connections() != n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return server_->open_connections() == n;
  }

  // A new connection to the server.
  int connect_again() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(server_->local_endpoint().port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    return fd;
  }

  CoreSet cores_{2};
  OwnerNamingHandler handler_;
  Dispatcher dispatcher_;
  std::unique_ptr<Server> server_;
  std::thread runner_;
  int fd_ = -1;
  int first_ = -1;  // find_cores()
  std::byte other_{};
};

TEST_F(ConnectionMove, AConnectionMovesToTheCoreItsPartitionsLiveOnAndBackOnlyWhenLongerAsked) {
  ASSERT_NO_FATAL_FAILURE(find_cores());
  const int first = first_;
  const std::byte other = other_;
  int32_t id = 2;
  // Eight answers in a row name the other core; each still runs here.
  for (int i = 0; i < 8; ++i) EXPECT_EQ(call(id++, other), first);
  // Then it moves at the first moment with nothing in flight, and stays.
  EXPECT_GE(calls_until_on(&id, other, 3), 1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(call(id++, kNoPartition), 1 - first);
  EXPECT_EQ(server_->connections_moved(), 1u);
  EXPECT_EQ(server_->open_connections(), 1u);

  // Back to the first core: a second move needs twice as many requests.
  const auto back = static_cast<std::byte>(first);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(call(id++, back), 1 - first);
  EXPECT_GE(calls_until_on(&id, back, 3), 1);
  EXPECT_EQ(server_->connections_moved(), 2u);
  EXPECT_EQ(server_->open_connections(), 1u);

  // Its one place in the limits is given back once, when it closes.
  ::close(std::exchange(fd_, -1));
  EXPECT_TRUE(await_open_connections(0));
}

TEST_F(ConnectionMove, BytesReceivedBeforeTheMoveAreAnsweredByTheNewCore) {
  ASSERT_NO_FATAL_FAILURE(find_cores());
  const int first = first_;
  const std::byte other = other_;
  int32_t id = 2;
  for (int i = 0; i < 7; ++i) EXPECT_EQ(call(id++, other), first);
  // The eighth request and the first 5 bytes of the ninth in one segment:
  // the session reads both, answers the eighth, and moves with those bytes.
  const auto eighth = request(id, other);
  const auto ninth = request(id + 1, other);
  std::vector<std::byte> both(eighth.begin(), eighth.end());
  both.insert(both.end(), ninth.begin(), ninth.begin() + 5);
  send_bytes(both);
  EXPECT_EQ(read_response(id), first);
  send_bytes(std::span(ninth).subspan(5));
  // Answered whole and in order, on either core (see calls_until_on()) ...
  EXPECT_GE(read_response(id + 1), 0);
  id += 2;
  // ... and the connection is on the other core.
  EXPECT_GE(calls_until_on(&id, other, 3), 1);
  EXPECT_EQ(server_->connections_moved(), 1u);
}

TEST_F(ConnectionMove, PipelinedRequestsAreAnsweredInOrderAcrossTheMove) {
  ASSERT_NO_FATAL_FAILURE(find_cores());
  const int first = first_;
  const std::byte other = other_;
  // Bursts of 50 requests in one write each, read back after each burst:
  // the move happens between bursts, and no request or answer is lost.
  int32_t id = 2;
  for (int burst = 0; burst < 20; ++burst) {
    std::vector<std::byte> bytes;
    for (int i = 0; i < 50; ++i) {
      const auto r = request(id + i, other);
      bytes.insert(bytes.end(), r.begin(), r.end());
    }
    send_bytes(bytes);
    for (int i = 0; i < 50; ++i) ASSERT_GE(read_response(id + i), 0) << "request " << id + i;
    id += 50;
  }
  EXPECT_EQ(call(id, other), 1 - first);
  EXPECT_EQ(server_->connections_moved(), 1u);
}

TEST_F(ConnectionMove, AConnectionMovesOnlyToACoreWithNoMoreConnectionsThanItsOwn) {
  // Three connections: two on one core, one on the other (the server hands
  // them out in turn). Each answers a ping with its core.
  std::vector<int> fds = {std::exchange(fd_, -1), connect_again(), connect_again()};
  std::vector<int> cores;
  int32_t id = 1;
  for (int fd : fds) {
    fd_ = fd;
    cores.push_back(call(id++, kNoPartition));
  }
  const int lone_core =
      (cores[0] == cores[1]) ? cores[2] : (cores[0] == cores[2] ? cores[1] : cores[0]);
  ASSERT_TRUE(lone_core == 0 || lone_core == 1);
  const auto crowded = static_cast<std::byte>(1 - lone_core);
  int lone = -1;
  std::vector<int> others;
  for (size_t i = 0; i < fds.size(); ++i) {
    if (cores[i] == lone_core) {
      lone = fds[i];
    } else {
      others.push_back(fds[i]);
    }
  }
  ASSERT_GE(lone, 0);
  ASSERT_EQ(others.size(), 2u);
  // Its partitions live on the crowded core: it stays.
  fd_ = lone;
  for (int i = 0; i < 24; ++i) EXPECT_EQ(call(id++, crowded), lone_core);
  EXPECT_EQ(server_->connections_moved(), 0u);
  // One of the two leaves: now it moves.
  ::close(others[0]);
  ASSERT_TRUE(await_open_connections(2));
  EXPECT_GE(calls_until_on(&id, crowded, 12), 8);
  EXPECT_EQ(server_->connections_moved(), 1u);
  ::close(others[1]);
}

TEST_F(ConnectionMove, AConnectionWhoseRequestsNameSeveralCoresStays) {
  ASSERT_NO_FATAL_FAILURE(find_cores());
  const int first = first_;
  const std::byte other = other_;
  int32_t id = 2;
  for (int round = 0; round < 10; ++round) {
    // Seven for the other core, then one for this core or both: never the
    // eight in a row that a move needs.
    for (int i = 0; i < 7; ++i) EXPECT_EQ(call(id++, other), first);
    EXPECT_EQ(call(id++, round % 2 == 0 ? static_cast<std::byte>(first) : kBothCores), first);
  }
  // Requests that name no partition do not count either way.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(call(id++, kNoPartition), first);
  EXPECT_EQ(server_->connections_moved(), 0u);
}

}  // namespace
}  // namespace spillway::broker
