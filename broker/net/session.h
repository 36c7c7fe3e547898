// One client connection: a reader that decodes request frames and
// dispatches them, a writer that sends the responses in request order, and between them a fixed
// ring of Exchanges (limits.max_in_flight_per_connection). A handler may finish its exchange later
// (after work on another core); the writer still sends responses strictly in request order.
//
// The reader stops reading (and so stops the client, through TCP) when the
// ring is full, and when the memory budget (protocol/memory_budget.h) has no
// room for the next request's body: a connection that holds more than its
// share of unsent responses waits for its own writes, one that is stopped by
// the broker-wide budget waits for memory to be given back anywhere. So a
// client that pipelines without reading only ever stops itself.
//
// A session lives on one io_context thread for its whole life; none of its
// members is touched from another thread (handlers post back to it). A
// plaintext connection whose requests keep naming partitions of one other
// core moves there, at a moment with nothing in flight: a new session on
// that core takes it over (start_moved()) and this one ends. Its
// socket operations take their memory from per-direction HandlerMemory
// blocks and request bodies are read into pooled buffers, so a steady stream
// of requests allocates nothing, and an idle connection keeps no request
// memory: exchanges are created the first time the ring needs them.
#pragma once

#include <array>
#include <asio/cancellation_signal.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "../protocol/dispatcher.h"
#include "../protocol/exchange.h"
#include "../protocol/memory_budget.h"
#include "../security/connection_security.h"
#include "../security/principal_mapping.h"
#include "../security/tls_context.h"
#include "connection_limits.h"
#include "connection_stream.h"
#include "handler_memory.h"
#include "sendfile_writer.h"
#include "spillway/common/log.h"

namespace spillway::broker {

class Session;
struct SessionListener;

// A plaintext connection on its way to another core (docs/architecture.md,
// "Connections move to their partitions' core"): what its new session on
// the target core takes over. Nothing is in flight when it is made.
struct MovedConnection {
  int fd = -1;  // the socket, released from the old core's reactor
  asio::ip::address address;
  const SessionListener* listener = nullptr;
  std::string principal;  // ConnectionSecurity's, once settled
  bool authenticated = true;
  std::vector<std::byte> received;  // read, not yet cut into frames
  std::chrono::steady_clock::time_point last_read;
  unsigned moves = 0;  // this one included
};

// What a session needs from its server. The server owns one per core; it
// outlives every session on that core.
struct SessionHost {
  asio::io_context* context = nullptr;  // the thread's io_context
  size_t core = 0;                      // the thread's core (CoreSet index)
  uint32_t max_frame_bytes = 0;
  size_t queue_depth = 0;                     // exchanges in flight per connection
  std::chrono::milliseconds idle_timeout{0};  // 0 = never
  MemoryBudget* memory = nullptr;             // shared by all threads
  uint64_t connection_memory_bytes = 0;       // each connection's share
  ConnectionLimits* limits = nullptr;         // shared by all threads
  // Connections not read because max_in_flight_per_connection requests of
  // theirs are unanswered (all threads).
  std::atomic<int64_t>* paused_at_max_in_flight = nullptr;
  std::unordered_set<Session*> sessions;  // live sessions of this thread
  // sessions.size(), readable from any thread: a connection moves to a
  // core only if that core has no more connections than its own.
  std::atomic<size_t> session_count{0};
  // Every core's host (the server's), to find a move's target.
  const std::vector<std::unique_ptr<SessionHost>>* peers = nullptr;
  // Set by Server::stop: run once, on this thread, when `sessions` is empty.
  std::function<void()> on_drained;
  // Sessions of this thread waiting for the broker-wide budget; woken by
  // wake_memory_waiters() when memory is given back.
  std::vector<std::shared_ptr<Session>> memory_waiters;
  // Hands a connection to another core's host (Server::move_session);
  // null where connections stay on their core (in-process tests).
  std::function<void(SessionHost& target, MovedConnection moved)> move_session;
  log::RateLimit bad_frame_log;      // oversized or malformed frame headers
  log::RateLimit tls_handshake_log;  // failed or stalled TLS handshakes
};

// Retries every session of `host` that waits for memory. The
// MemoryBudget's per-core wake-up (ctx = the SessionHost).
void wake_memory_waiters(void* host);

// What a session takes from the listener it was accepted on. Owned by the
// server; outlives every session.
struct SessionListener {
  const Dispatcher* dispatcher = nullptr;  // its protocol and handlers
  size_t index = 0;                        // in ServerOptions::listeners
  security::SecurityProtocol security = security::SecurityProtocol::kPlaintext;
  // TLS listeners (SSL, SASL_SSL): where each new connection takes its
  // context from (swapped on SIGHUP), the client certificate's subject to
  // principal mapping, and how long the handshake may take.
  const security::TlsContextSource* tls = nullptr;
  const security::PrincipalMapper* principal_mapper = nullptr;
  std::chrono::milliseconds handshake_timeout{10'000};
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  // Takes ownership of a connected socket whose executor is `host`'s thread,
  // and of its place in host.limits (counted for `address`), given back
  // when the session ends.
  Session(asio::ip::tcp::socket socket, asio::ip::address address, SessionHost& host,
          const SessionListener& listener);
  ~Session();

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Starts the reader and writer. The session keeps itself alive until both
  // have ended and every exchange has finished, then leaves host.sessions.
  void start();
  // Starts a session that takes over a connection moved from another core
  // (its security state and the bytes already received), instead of start().
  void start_moved(MovedConnection moved);

  // Graceful stop: reads no further request, answers every request already
  // read, then closes the connection. Idempotent. Call on the session's thread.
  void stop();

  // After a cut shutdown, once no thread runs the session's context any
  // more: drops the hold its unanswered exchanges keep on it, so it is
  // destroyed with the work still queued for it instead of leaking.
  void abandon();

  // Eviction of idle connections when max_connections is reached (see
  // Server): true while no request is in flight or waiting and the reader is
  // waiting for the next header, i.e. only a silent client is affected.
  bool evictable() const;
  std::chrono::steady_clock::time_point last_read() const { return last_read_; }
  const asio::ip::address& address() const { return address_; }
  // Closes the connection gracefully; its place in host.limits has already
  // been handed to another connection (ConnectionLimits::replace), so it is
  // not given back again.
  void evict();

  // Wakes a session that waits for the broker-wide budget (on its thread).
  void retry_memory();

 private:
  // The reader's state. A read is pending in kHeader and kBody; in the
  // three waits no read is pending and something else resumes the reader
  // (a written response, memory given back); kDone is final.
  enum class ReadState {
    kBetween,     // between requests (dispatching one), about to read the next
    kHeader,      // reading (into the inbox) for a request header
    kRingFull,    // every exchange in flight: the writer resumes it
    kOverShare,   // the connection holds its whole memory share: its writes resume it
    kWaitBudget,  // the broker is over its memory budget: memory given back resumes it
    kWaitEarlier, // a header read whose request waits for the earlier ones to be
                  // answered (Dispatcher::waits_for_earlier): their finish resumes it
    kBody,        // reading a request body
    kDone,        // no more requests (stop, EOF, a read error, a bad frame)
  };
  // The writer's state.
  enum class WriteState {
    kIdle,       // nothing being written
    kWriting,    // a gather write is pending
    kBroken,     // a write failed: exchanges are drained without writing
    kLingering,  // FIN sent, the client's input drained until it closes
    kClosed,     // the socket is closed (or the session abandoned)
  };

  // TLS listeners: the server handshake, bounded by the listener's
  // handshake_timeout, before the first read; then the principal from a
  // verified client certificate (SSL listeners).
  void start_handshake(std::chrono::milliseconds timeout);
  void on_handshake(const asio::error_code& ec);
  // Reader: header, then memory for the body, then body, then dispatch;
  // paused while the ring is full or the budget has no room. Headers and
  // bodies that fit are cut out of the inbox, which one read fills with as
  // many frames as have arrived (one recv for several small requests,
  // instead of one for each header and each body). read_header() loops
  // over the frames already received instead of recursing through them.
  void read_header();
  void next_frame();
  void on_header();
  // Reads whatever has arrived, up to the inbox's free room, then goes on
  // with the header or body that needed it (on_inbox).
  void fill_inbox();
  void on_inbox(const asio::error_code& ec, size_t n);
  size_t inbox_bytes() const { return inbox_end_ - inbox_begin_; }
  // Rents the (empty) inbox; false, logged, when the pool has no memory.
  bool rent_inbox();
  void release_inbox();
  // Takes memory for the body from the budget, or starts waiting for it
  // (kOverShare or kWaitBudget). True iff taken.
  bool take_body_memory();
  // Every exchange in flight is finished (its answer built).
  bool earlier_finished() const;
  // From kWaitEarlier, once earlier_finished(): reads the waiting body.
  void resume_after_earlier();
  // Leaves a wait (or none), keeping the gauges of paused connections right.
  void set_read_state(ReadState next);
  void read_body();
  void on_body(const asio::error_code& ec);
  void reader_done();
  bool reading() const { return read_ == ReadState::kHeader || read_ == ReadState::kBody; }
  // Writer: sends every finished exchange at the head of the ring (in
  // request order) in one gather write; closes once the reader is done and
  // nothing is in flight.
  void kick_writer();
  void on_written(const asio::error_code& ec, size_t exchanges);
  // The gather write of kick_writer() for a batch in which some response
  // holds file ranges (plaintext only): sendmsg and sendfile through
  // sendfile_writer_, waiting for writability whenever the socket is full,
  // then on_written().
  void send_with_files(size_t exchanges);
  void continue_with_files(size_t exchanges);
  // Ends the connection once every response is written: FIN first, then
  // input is read and discarded until the client closes or kLingerTime
  // passes, and only then the socket is closed. Closing a socket with unread
  // input makes the kernel answer with RST, which destroys responses still
  // on their way to the client (a torn last frame).
  void close_gracefully();
  void drain_input();
  void close_socket();
  void watch_idle();
  // A buffer of at least `n` bytes for the request body: pooled up to
  // BufferPool::kMaxBufferSize, from the heap above. Only called once `n`
  // has been checked against max_frame_bytes. Given back by free_body().
  std::byte* body_buffer(size_t n);
  void free_body();
  Exchange& next_exchange();
  static void on_finished(Exchange& exchange, void* owner);
  // Connection affinity: counts the requests whose partitions all live on
  // one other core, and asks for a move (move_to_) once enough of them in a
  // row did. The move waits for a moment with nothing in flight
  // (move_when_quiet()); move_now() hands the socket over.
  void note_partition_owner(const Exchange& exchange);
  bool can_move() const;
  bool move_when_quiet();
  void move_now();

  ConnectionStream stream_;  // the socket, or TLS over it
  SessionHost& host_;
  const SessionListener& listener_;
  const Dispatcher& dispatcher_;  // the listener's: its protocol and handlers
  const asio::ip::address address_;
  // Before ring_: destroyed after the exchanges, giving back what they hold.
  ConnectionMemory memory_;
  uint64_t body_charge_ = 0;          // taken for the request being read
  bool body_admitted_empty_ = false;  // ConnectionMemory::admit's `empty`
  // Fixed size queue_depth; an exchange is created the first time its slot
  // is used.
  std::vector<std::unique_ptr<Exchange>> ring_;
  size_t head_ = 0;  // oldest exchange in flight
  size_t in_flight_ = 0;
  asio::steady_timer idle_timer_;
  asio::cancellation_signal stop_reading_;
  HandlerMemory read_memory_, write_memory_, idle_memory_;
  std::array<std::byte, frame::kRequestHeaderBytes> header_bytes_;
  frame::RequestHeader header_{};
  std::chrono::steady_clock::time_point last_read_;
  ReadState read_ = ReadState::kBetween;
  WriteState write_ = WriteState::kIdle;
  bool stopping_ = false;     // stop() was called: read nothing more
  bool evicted_ = false;      // the place in host.limits was handed on
  bool moved_ = false;        // the connection went to another core's session
  // Connection affinity (note_partition_owner()).
  asio::io_context* affinity_ = nullptr;  // the other core the last requests named
  unsigned affinity_streak_ = 0;          // requests in a row that named it
  unsigned moves_ = 0;                    // times this connection moved
  SessionHost* move_to_ = nullptr;        // a move there waits for a quiet moment
  bool handshaking_ = false;  // the TLS handshake is in progress
  bool tls_up_ = false;       // the TLS handshake succeeded: close with close_notify
  std::string peer_;
  // Who the client is; given to every exchange (Exchange::security()).
  security::ConnectionSecurity security_;
  std::byte* body_ = nullptr;  // pooled, or heap when body_heap_
  std::unique_ptr<std::byte[]> body_heap_;
  // Received bytes not yet cut into frames: [inbox_begin_, inbox_end_) of a
  // pooled kInboxBytes buffer, rented at the first read and given back when
  // the reader is done. A body larger than the inbox is read straight into
  // its own buffer (body_buffer()) after the part already received.
  static constexpr size_t kInboxBytes = 4096;
  std::byte* inbox_ = nullptr;
  size_t inbox_begin_ = 0;
  size_t inbox_end_ = 0;
  bool body_in_inbox_ = false;  // the body being dispatched lies in the inbox
  bool in_read_loop_ = false;   // read_header() is cutting frames
  bool read_again_ = false;     // ... and is asked for the next one
  std::vector<asio::const_buffer> write_buffers_;  // reused across responses
  SendfileWriter sendfile_writer_;                 // reused across responses
};

}  // namespace spillway::broker
