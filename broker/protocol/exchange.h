// Exchange: one request in flight on a connection and the response being
// built for it. A connection owns a fixed ring of them
// (limits.max_in_flight_per_connection), reused request after request, so
// handling a request allocates nothing: the response body goes into a
// WriteBuffer with inline scratch that spills into the pooled segments.
//
// Threading: an exchange belongs to its connection's thread. A handler may
// hand work to another core, but finish() must be called on the exchange's
// own thread (post back to executor()), exactly once per request. Until then
// the exchange, and the connection holding it (keep_alive()), stay alive.
#pragma once

#include <array>
#include <asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "memory_budget.h"
#include "spillway/common/frame.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::broker {

namespace security {
struct ConnectionSecurity;
}

// Per-request state a handler keeps in an exchange while the request is in
// flight. Created on first use and kept for the exchange's life, so later
// requests on the same exchange reuse it (and its vectors' capacity).
class ExchangeState {
 public:
  virtual ~ExchangeState() = default;
};

class Exchange {
 public:
  // Slots of state(): one per kind of handler, so alternating request kinds
  // never recreate each other's state (and a slot never holds two types).
  enum StateSlot : size_t {
    kProduceState,
    kFetchState,
    kOtherState,
    kKafkaProduceState,
    kKafkaFetchState,
    kKafkaListOffsetsState,
    kReplicaFetchState,
    kStateSlots
  };

  // Called once finish() has framed the response; `owner` is what was given
  // to reset().
  using OnFinished = void (*)(Exchange& exchange, void* owner);

  // How the response frame is laid out.
  enum class Framing : uint8_t {
    // Native (docs/protocol.md): [i32 length][i32 correlation id][i16 error
    // code] then the body; a failed request gets an error frame.
    kNative,
    // Kafka response header v0: [i32 length][i32 correlation id], body.
    kKafkaV0,
    // Kafka response header v1: v0 and an empty tag buffer, body.
    kKafkaV1,
  };

  // Everything a new request on this exchange starts with (by the
  // connection).
  struct Start {
    frame::RequestHeader header;
    // Must stay valid until the handler's handle() returns, not longer.
    std::span<const std::byte> body;
    // The BufferPool::global() buffer that holds `body` and nothing else,
    // when the connection read the body into a buffer of its own (null when
    // the body sits in a read buffer shared with other frames, or on the
    // heap): a handler may take it over (adopt_body()).
    std::byte* pooled_body = nullptr;
    asio::io_context* context = nullptr;  // the connection's
    std::shared_ptr<void> keep_alive;     // holds the connection
    OnFinished on_finished = nullptr;
    void* owner = nullptr;
    // The connection's memory account (null: unbudgeted, as in some tests)
    // and the bytes already taken from it for this request (its body);
    // given back by recycle().
    ConnectionMemory* memory = nullptr;
    uint64_t charged = 0;
    // The connection held nothing when this request was admitted
    // (ConnectionMemory::admit).
    bool connection_was_empty = false;
    Framing framing = Framing::kNative;
    // The client's address, "host:port"; must stay valid while keep_alive
    // holds the connection (group members' client_host).
    std::string_view peer;
    // The connection's security state (who the client is); null only for
    // requests that come through no connection (in-process tests). Must
    // stay valid while keep_alive holds the connection.
    security::ConnectionSecurity* security = nullptr;
  };

  Exchange() noexcept : out_(std::span<std::byte>(scratch_)) {}
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Starts a new request on this exchange.
  void reset(Start start) noexcept;

  const frame::RequestHeader& header() const noexcept { return header_; }
  // The request body; valid only during the handler's handle() call.
  std::span<const std::byte> body() const noexcept { return body_; }
  // Narrows the body to its part after a protocol's own request header
  // (Kafka's client id and tags). `body` must lie within body().
  void set_body(std::span<const std::byte> body) noexcept { body_ = body; }
  // Takes over the pooled buffer that holds the body (Start::pooled_body),
  // so a produced batch is appended from where the socket put it instead of
  // being copied once more; the caller gives it back to
  // BufferPool::global(). Null when the body has no buffer of its own or
  // it was taken already. During handle() only; the body's bytes stay
  // where they are.
  std::byte* adopt_body() noexcept {
    if (pooled_body_ != nullptr) body_adopted_ = true;
    return std::exchange(pooled_body_, nullptr);
  }
  // adopt_body() took the body's buffer: the connection must not reuse or
  // give it back.
  bool body_adopted() const noexcept { return body_adopted_; }
  // The client id of Kafka's request header; valid only during handle().
  std::string_view client_id() const noexcept { return client_id_; }
  void set_client_id(std::string_view client_id) noexcept { client_id_ = client_id; }
  // The client's address, "host:port" (empty when unknown); valid while
  // keep_alive() holds the connection.
  std::string_view peer() const noexcept { return peer_; }
  Framing framing() const noexcept { return framing_; }
  // The connection's security state (security/connection_security.h): its
  // listener, principal and SASL progress. Null for requests that come
  // through no connection (in-process tests). Written only by the SASL
  // handlers, on the connection's thread.
  security::ConnectionSecurity* security() const noexcept { return security_; }
  // Where the handler writes the response body (after the header space).
  WriteBuffer& out() noexcept { return out_; }
  // The connection's executor: post completions here.
  asio::io_context::executor_type executor() const noexcept { return context_->get_executor(); }
  asio::io_context& context() const noexcept { return *context_; }
  // Holds the connection (and so this exchange) alive; copy it into work
  // posted elsewhere.
  const std::shared_ptr<void>& keep_alive() const noexcept { return keep_alive_; }
  // Bumped by every reset(): lets late notifications recognise a reused
  // exchange.
  uint64_t generation() const noexcept { return generation_; }

  // Frames the response: with ok, the body written to out(); otherwise, in
  // the native framing, an error response carrying `status` (the body
  // written so far is dropped), and in Kafka's, which has no error frame, no
  // response: the connection answers the requests before this one and then
  // closes, as Kafka does with a request it cannot answer. Then tells the
  // connection. Call on executor()'s thread, once.
  void finish(const Status& status) noexcept;

  // Finishes a request that gets no response at all: Kafka's Produce with
  // acks=0. The connection writes nothing for it and goes on with the
  // responses after it. Call on executor()'s thread, once, instead of finish().
  void finish_without_response() noexcept;

  // Asks the connection to close once this exchange's response is written
  // (a failed authentication, a request before authentication). Call
  // before finish(), during the handler's handle().
  void close_after_response() noexcept { close_after_response_ = true; }
  bool closes_after_response() const noexcept { return close_after_response_; }

  bool finished() const noexcept { return finished_; }
  // After finish_without_response(): there is no frame to write.
  bool without_response() const noexcept { return without_response_; }
  // After finish(): the frame's bytes held in memory, as iovecs for a
  // gather write; file_ranges() go between them.
  std::span<const iovec> frame_segments() noexcept { return out_.segments(); }

  // Zero-copy responses (docs/architecture.md, "Fetch data by sendfile").
  // A run of the frame that is not in out() but in a file, sent with
  // sendfile(2): `length` bytes of descriptor `fd` from `position`, which
  // go right before out()'s byte at offset `at` (frame_segments() counts
  // from the frame's first byte). `hold` keeps `fd` open until recycle().
  struct FileRange {
    uint64_t at = 0;
    int fd = -1;
    uint64_t position = 0;
    uint64_t length = 0;
    std::shared_ptr<const void> hold;
  };
  // Ranges one response may hold: each pins a descriptor (and is a split
  // of the gather write) until the response is written. A response with
  // more copies the rest.
  static constexpr size_t kMaxFileRanges = 16;
  // Set by the connection, once, when it can send file ranges (a plaintext
  // socket; never TLS, which must encrypt the bytes in user space). Off by
  // default, so requests that come through no connection see every byte in
  // frame_segments().
  void set_sends_file_ranges(bool on) noexcept { sends_file_ranges_ = on; }
  bool sends_file_ranges() const noexcept { return sends_file_ranges_; }
  // Appends a file range at the end of what out() holds now (a handler's
  // encoder, in place of copying the bytes). False, and nothing kept, when
  // the connection cannot send ranges or kMaxFileRanges are taken: copy
  // the bytes into out() instead. Frames on error drop their ranges.
  bool add_file_range(int fd, uint64_t position, uint64_t length,
                      std::shared_ptr<const void> hold) noexcept;
  // After finish(): the frame's file ranges, in order of `at`.
  std::span<const FileRange> file_ranges() const noexcept { return file_ranges_; }
  // After the frame is written: returns pooled segments, drops the keep-alive.
  void recycle() noexcept;

  // Called by every finish() with the protocol (whose numbering the api key
  // is in), the api key and the time since reset() (the metrics' latency
  // histograms). Set once at start, before any request.
  using FinishObserver = void (*)(void* ctx, bool kafka, int16_t api_key,
                                  std::chrono::nanoseconds latency);
  static void set_finish_observer(FinishObserver observer, void* ctx) noexcept;

  // Memory for a response larger than the inline scratch (fetch): takes up
  // to `want` bytes from the connection's budget and returns how many were
  // granted (see memory_budget.h; 0 when nothing fits). Held until
  // recycle(). Without an account every request is granted in full.
  uint64_t grant_response_bytes(uint64_t want) noexcept;
  // Once the response is built: `used` of the `granted` bytes were used.
  // Unused bytes go back; bytes past the grant are taken whatever the
  // budget says (a fetch's first batch is sent whole so that the consumer
  // makes progress).
  void settle_response_bytes(uint64_t granted, uint64_t used) noexcept;
  // Bytes this request holds from the budget right now.
  uint64_t charged_bytes() const noexcept { return charged_; }

  // Which core's partitions this request works on (docs/architecture.md,
  // "Connections move to their partitions' core"): a handler that posts
  // work for a partition to its owner core notes the owner here, during
  // handle(). The connection moves to the core that every request names.
  void note_partition_owner(asio::io_context& owner) noexcept {
    if (partition_owner_ == nullptr && !mixed_owners_) {
      partition_owner_ = &owner;
    } else if (partition_owner_ != &owner) {
      partition_owner_ = nullptr;
      mixed_owners_ = true;
    }
  }
  // The one owner core the request's partitions have; null when it named
  // no partition or partitions of several cores.
  asio::io_context* partition_owner() const noexcept { return partition_owner_; }
  // It named partitions of more than one core.
  bool mixed_partition_owners() const noexcept { return mixed_owners_; }

  // The handler state of kind T in `slot`, created on first use.
  template <typename T>
  T& state(StateSlot slot) {
    if (!states_[slot]) states_[slot] = std::make_unique<T>();
    return static_cast<T&>(*states_[slot]);
  }

 private:
  // The metrics' observer, then the owner's on_finished callback.
  void notify_finished() noexcept;
  void drop_file_ranges() noexcept;

  std::array<std::byte, 512> scratch_;
  WriteBuffer out_;
  frame::RequestHeader header_{};
  std::span<const std::byte> body_;
  std::byte* pooled_body_ = nullptr;
  bool body_adopted_ = false;
  std::string_view client_id_;
  std::string_view peer_;
  security::ConnectionSecurity* security_ = nullptr;
  // The concrete context (not an any_io_executor): posting to it uses the
  // handler's allocator instead of a type-erased, heap-backed wrapper.
  asio::io_context* context_ = nullptr;
  std::shared_ptr<void> keep_alive_;
  OnFinished on_finished_ = nullptr;
  void* owner_ = nullptr;
  uint64_t generation_ = 0;
  ConnectionMemory* memory_ = nullptr;
  uint64_t charged_ = 0;
  bool connection_was_empty_ = false;
  Framing framing_ = Framing::kNative;
  std::chrono::steady_clock::time_point started_{};
  bool finished_ = false;
  bool without_response_ = false;
  bool close_after_response_ = false;
  bool sends_file_ranges_ = false;
  asio::io_context* partition_owner_ = nullptr;  // note_partition_owner()
  bool mixed_owners_ = false;
  // Reserved for kMaxFileRanges on first use, then reused.
  std::vector<FileRange> file_ranges_;
  uint64_t file_bytes_ = 0;  // sum of the ranges' lengths
  std::array<std::unique_ptr<ExchangeState>, kStateSlots> states_;
};

}  // namespace spillway::broker
