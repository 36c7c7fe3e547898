// Asynchronous handlers in-process: requests finished out of order, on
// another core, still leave a connection in request order.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <asio/post.hpp>
#include <mutex>
#include <thread>

#include "net/server.h"
#include "socket_io.h"
#include "spillway/common/frame.h"

namespace spillway::broker {
namespace {

using testing::read_exactly;

// Holds requests until it has `batch` of them, then finishes them in reverse
// order, each from another core's thread via a post back.
class ReversingHandler final : public Handler {
 public:
  ReversingHandler(CoreSet& cores, size_t batch) : cores_(cores), batch_(batch) {}
  void handle(Exchange& exchange) override {
    std::vector<Exchange*> ready;
    {
      std::lock_guard lock(mu_);
      held_.push_back(&exchange);
      if (held_.size() < batch_) return;
      ready.swap(held_);
    }
    asio::io_context& other = cores_.context(1);
    for (auto it = ready.rbegin(); it != ready.rend(); ++it) {
      Exchange* e = *it;
      asio::post(other, [e, keep = e->keep_alive()] {
        asio::post(e->context(), [e, keep] {
          const int32_t id = e->header().correlation_id;
          std::byte body[4];
          store(body, id);
          (void)e->out().write(body);
          e->finish(Status::Ok());
        });
      });
    }
  }
  static void store(std::byte* p, int32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (24 - 8 * i));
  }

 private:
  CoreSet& cores_;
  const size_t batch_;
  std::mutex mu_;
  std::vector<Exchange*> held_;
};

int connect_to(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  return fd;
}

TEST(AsyncDispatch, OutOfOrderCompletionsLeaveInRequestOrder) {
  constexpr int kRequests = 6;
  CoreSet cores(2);
  ReversingHandler handler(cores, kRequests);
  Dispatcher dispatcher;
  dispatcher.add(frame::ApiKey::kMetadata, 0, 0, &handler);
  ServerOptions options;
  options.listeners.push_back(
      {.name = "test", .address = HostPort{"127.0.0.1", 0}, .dispatcher = &dispatcher});
  options.handle_signals = false;
  Server server(cores, options);
  ASSERT_TRUE(server.open().ok());
  std::thread runner([&] { server.run(); });

  const int fd = connect_to(server.local_endpoint().port());
  for (int32_t id = 1; id <= kRequests; ++id) {
    std::array<std::byte, frame::kRequestHeaderBytes> header;
    frame::encode_request_header({static_cast<int16_t>(frame::ApiKey::kMetadata), 0, id, 0},
                                 header);
    ASSERT_EQ(::send(fd, header.data(), header.size(), 0), static_cast<ssize_t>(header.size()));
  }
  for (int32_t id = 1; id <= kRequests; ++id) {
    std::array<std::byte, frame::kResponseHeaderBytes + 4> response;
    ASSERT_TRUE(read_exactly(fd, response.data(), response.size()));
    frame::ResponseHeader h;
    ASSERT_TRUE(frame::decode_response_header(
                    std::span(response).first<frame::kResponseHeaderBytes>(), 1 << 20, &h)
                    .ok());
    EXPECT_EQ(h.correlation_id, id);
    EXPECT_EQ(h.body_bytes, 4u);
    const int32_t echoed = (std::to_integer<int32_t>(response[10]) << 24) |
                           (std::to_integer<int32_t>(response[11]) << 16) |
                           (std::to_integer<int32_t>(response[12]) << 8) |
                           std::to_integer<int32_t>(response[13]);
    EXPECT_EQ(echoed, id);
  }
  ::close(fd);
  server.stop();
  runner.join();
}

}  // namespace
}  // namespace spillway::broker
