// One client connection: a reader that decodes request frames and
// dispatches them, a writer that sends the responses in request order, and between them a fixed
// ring of Exchanges (limits.max_in_flight_per_connection). A handler may finish its exchange later
// (after work on another core); the writer still sends responses strictly in request order. When
// the ring is full the reader stops reading until the writer has sent the oldest response, so a
// client that pipelines without reading cannot make the broker buffer without bound.
//
// A session lives on one io_context thread for its whole life; none of its
// members is touched from another thread (handlers post back to it). Its
// socket operations take their memory from per-direction HandlerMemory
// blocks, so a steady stream of requests allocates nothing.
#pragma once

#include <array>
#include <asio/cancellation_signal.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "../protocol/dispatcher.h"
#include "../protocol/exchange.h"
#include "handler_memory.h"

namespace spillway::broker {

class Session;

// What a session needs from its server. Owned by the server's per-thread
// shard, outlives every session on that thread.
struct SessionHost {
  const Dispatcher* dispatcher = nullptr;
  asio::io_context* context = nullptr;  // the thread's io_context
  uint32_t max_frame_bytes = 0;
  size_t queue_depth = 0;                           // exchanges in flight per connection
  std::chrono::milliseconds idle_timeout{0};        // 0 = never
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
  // have ended and every exchange has finished, then leaves host.sessions.
  void start();

  // Graceful stop: reads no further request, answers every request already
  // read, then closes the connection. Idempotent. Call on the session's thread.
  void stop();

  // After a cut shutdown, once no thread runs the session's context any
  // more: drops the hold its unanswered exchanges keep on it, so it is
  // destroyed with the work still queued for it instead of leaking.
  void abandon();

 private:
  // Reader: header, then body, then dispatch; paused while the ring is full.
  void read_header();
  void on_header(const asio::error_code& ec);
  void on_body(const asio::error_code& ec);
  void reader_done();
  // Writer: sends every finished exchange at the head of the ring (in
  // request order) in one gather write; closes once the reader is done and
  // nothing is in flight.
  void kick_writer();
  void on_written(const asio::error_code& ec, size_t exchanges);
  // Ends the connection once every response is written: FIN first, then
  // input is read and discarded until the client closes or kLingerTime
  // passes, and only then the socket is closed. Closing a socket with unread
  // input makes the kernel answer with RST, which destroys responses still
  // on their way to the client (a torn last frame).
  void close_gracefully();
  void drain_input();
  void watch_idle();
  // Makes the body buffer hold at least `n` bytes. Only called once `n` has
  // been checked against max_frame_bytes.
  std::byte* body_buffer(size_t n);
  Exchange& next_exchange();
  static void on_finished(Exchange& exchange, void* owner);

  asio::ip::tcp::socket socket_;
  SessionHost& host_;
  std::vector<std::unique_ptr<Exchange>> ring_;  // fixed size queue_depth
  size_t head_ = 0;                              // oldest exchange in flight
  size_t in_flight_ = 0;
  asio::steady_timer idle_timer_;
  asio::cancellation_signal stop_reading_;
  HandlerMemory read_memory_, write_memory_, idle_memory_;
  std::array<std::byte, frame::kRequestHeaderBytes> header_bytes_;
  frame::RequestHeader header_{};
  std::chrono::steady_clock::time_point last_read_;
  bool stopping_ = false;
  bool reading_ = false;
  bool reader_paused_ = false;  // the ring was full
  bool reader_done_ = false;
  bool writing_ = false;
  bool broken_ = false;  // a write failed: drain without writing
  bool closed_ = false;
  bool socket_closed_ = false;
  std::string peer_;
  std::unique_ptr<std::byte[]> body_;  // reused across requests
  size_t body_capacity_ = 0;
  std::vector<asio::const_buffer> write_buffers_;  // reused across responses
};

}  // namespace spillway::broker
