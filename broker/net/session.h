// One client connection: a reader coroutine that decodes request frames and
// dispatches them, a writer coroutine that sends the responses, and a bounded
// queue between them (docs/architecture.md, "Networking"). A session lives on
// one io_context thread for its whole life; none of its members is touched
// from another thread.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/experimental/channel.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "../protocol/dispatcher.h"

namespace spillway::broker {

class Session;

// What a session needs from its server. Owned by the server's per-thread
// shard, outlives every session on that thread.
struct SessionHost {
  const Dispatcher* dispatcher = nullptr;
  uint32_t max_frame_bytes = 0;
  size_t queue_depth = 0;                           // responses queued before the reader waits
  std::unordered_set<Session*> sessions;            // live sessions of this thread
  std::atomic<size_t>* open_connections = nullptr;  // shared by all threads
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  // Takes ownership of a connected socket whose executor is `host`'s thread.
  Session(asio::ip::tcp::socket socket, SessionHost& host);
  ~Session();

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Starts the reader and writer. The session keeps itself alive until both
  // have ended and then leaves host.sessions.
  void start();

  // Graceful stop: reads no further request, answers every request already
  // read, then closes the connection. Idempotent. Call on the session's thread.
  void stop();

 private:
  using Frame = std::vector<std::byte>;  // an encoded response; empty = end of stream
  using Queue = asio::experimental::channel<void(asio::error_code, Frame)>;

  asio::awaitable<void> read_loop();
  asio::awaitable<void> write_loop();
  // Reads exactly `n` bytes into `dst`; false on EOF, error or stop.
  asio::awaitable<bool> read_exactly(std::byte* dst, size_t n);
  // Makes the body buffer hold at least `n` bytes. Only called once `n` has
  // been checked against max_frame_bytes.
  std::byte* body_buffer(size_t n);

  asio::ip::tcp::socket socket_;
  SessionHost& host_;
  Queue queue_;
  asio::cancellation_signal stop_reading_;
  bool stopping_ = false;
  std::string peer_;
  std::unique_ptr<std::byte[]> body_;  // reused across requests
  size_t body_capacity_ = 0;
};

}  // namespace spillway::broker
