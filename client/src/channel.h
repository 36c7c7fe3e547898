// Channel: the client library's one transport, a blocking TCP connection to
// a broker speaking the native protocol (docs/protocol.md). Every request the
// library makes goes through one: the Producer's I/O thread (pipelined
// Produce and Metadata requests), the Consumer (Fetch long polls and its
// Metadata/FetchOffsets/CommitOffsets calls) and Admin, through the public
// Connection (spillway/connection.h), which is a handle on a Channel.
//
// Requests go out as one gather write of a WriteBuffer's segment table
// through the GatherWriter (io_uring, writev fallback). Responses come back
// one of two ways:
//  - read_response(): the body is read into a buffer the channel keeps and
//    reuses (grown to the largest response seen), so a steady stream of
//    requests allocates nothing. For the hot paths, Produce and Fetch.
//  - call(): a control call. One request, its answer read whole into a
//    vector the caller owns; the reused buffer is not touched, so records
//    that point into a fetched response stay valid across a commit.
//
// Timeouts: connecting gives each resolved address options.connect_timeout.
// A response must arrive whole within its timeout (options.request_timeout
// unless the call names another), counted from when reading it starts.
// Every transport failure (timeout, peer closed, malformed or oversized
// header, mismatched correlation id) closes the channel; connect() makes a
// new connection on the same object, and the reused buffer, with whatever
// views point into it, survives.
//
// Concurrency: one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/frame.h"
#include "spillway/common/gather_writer.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"
#include "spillway/connection.h"
#include "tls_client.h"

namespace spillway::wire {

// A response read by read_response().
struct Response {
  int32_t correlation_id = 0;
  ErrorCode error = ErrorCode::kOk;
  // The body: valid until the next read_response() or reserve(), or the
  // channel's destruction. For an error response, the error body (see
  // frame::decode_error_body).
  std::span<const std::byte> body;
};

class Channel {
 public:
  Channel() = default;
  ~Channel() { close(); }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Connects to `address` ("host:port"; host a name, an IPv4 literal or a
  // [bracketed] IPv6 literal), closing any connection first. Keeps
  // `options` for the calls that follow. Errors: kInvalidArgument
  // (malformed or unresolvable address), kNotConnected (no address
  // answers), kTimeout.
  Status connect(std::string_view address, const ConnectionOptions& options);
  bool is_open() const noexcept { return fd_ >= 0; }
  // The socket, for a poll() over several channels (-1 when closed).
  int native_handle() const noexcept { return fd_; }
  // True when TLS holds decrypted bytes not yet read: a response may be
  // readable although the socket is not.
  bool has_buffered_input() const noexcept;
  void close() noexcept;

  // The id of the next request on this channel: counts up across
  // reconnects, wrapping from INT32_MAX to 0.
  int32_t next_correlation_id() noexcept {
    const int32_t id = next_correlation_id_;
    next_correlation_id_ = id == INT32_MAX ? 0 : id + 1;
    return id;
  }

  // Sends every byte of `request` (one or more whole frames). A failure
  // closes the channel (kNotConnected), unless `close_on_failure` is off:
  // then the caller must close it (the producer's sending callers leave
  // closing to its I/O thread, which may be polling the descriptor).
  Status send(WriteBuffer& request, bool close_on_failure = true) noexcept;
  // TLS runs over this channel: its reads and writes share one TLS session,
  // so they must never run at once on two threads.
  bool encrypted() const noexcept { return tls_ != nullptr; }

  // Reads one whole response frame into the reused buffer, within
  // options().request_timeout or `timeout`. Errors, each closing the
  // channel: kTimeout; kNotConnected when the peer closes or the read
  // fails; kFrameTooLarge for a length above options().max_response_bytes;
  // kCorruptMessage for a malformed header. The caller matches the
  // correlation id.
  Result<Response> read_response();
  Result<Response> read_response(std::chrono::milliseconds timeout);

  // A control call: frames a request of `api_key` / `api_version` whose body
  // `encode_body(WriteBuffer&) -> Status` writes, sends it, and reads its
  // response into a vector the caller owns. Returns that body when the
  // broker answered with error code 0; an error response becomes a Status
  // with the broker's code and message (the channel stays open). Transport
  // failures are read_response()'s, plus kCorruptMessage when the response
  // answers another request. An encoder's error is returned as is, with
  // nothing sent.
  template <typename EncodeBody>
  Result<std::vector<std::byte>> call(frame::ApiKey api_key, int16_t api_version,
                                      EncodeBody&& encode_body) {
    return call(api_key, api_version, options_.request_timeout,
                std::forward<EncodeBody>(encode_body));
  }
  // The same, waiting up to `timeout` for the answer (a JoinGroup waits for
  // a whole rebalance).
  template <typename EncodeBody>
  Result<std::vector<std::byte>> call(frame::ApiKey api_key, int16_t api_version,
                                      std::chrono::milliseconds timeout, EncodeBody&& encode_body);

  // Waits until a response can be read or `timeout` passes (or `wake_fd`,
  // if >= 0, is readable). Returns true iff the socket is readable.
  bool wait_readable(std::chrono::milliseconds timeout, int wake_fd) noexcept;

  // Sizes the reused buffer for responses up to `bytes` now, so that later
  // reads do not grow it (pages are only touched when used).
  void reserve(std::size_t bytes);

  // The address given to connect().
  const std::string& address() const noexcept { return address_; }
  const ConnectionOptions& options() const noexcept { return options_; }

 private:
  // SASL on a new connection (channel_sasl.cc): SaslHandshake and
  // SaslAuthenticate with options_.security.sasl. kAuthenticationFailed
  // (with the broker's message), kUnsupportedSaslMechanism, ...
  Status authenticate();

  using Clock = std::chrono::steady_clock;
  // When a response must be complete, and the timeout that set it.
  struct Deadline {
    Clock::time_point at;
    std::chrono::milliseconds timeout;
  };

  // Sends the framed request in `request` and reads the answer to
  // `correlation_id` into an owned vector (call()'s second half).
  Result<std::vector<std::byte>> exchange(WriteBuffer& request, int32_t correlation_id,
                                          std::chrono::milliseconds timeout);
  // Reads and checks one response header.
  Status read_header(Deadline deadline, frame::ResponseHeader* header);
  // Reads exactly `n` bytes by `deadline`.
  Status read_exactly(std::byte* dst, std::size_t n, Deadline deadline);
  // Waits until the socket is readable; kTimeout (closing) at `deadline`.
  Status await_bytes(Deadline deadline);
  // Closes the channel; returns `code` with the address and `what`.
  Status fail(ErrorCode code, std::string_view what);

  int fd_ = -1;
  std::unique_ptr<TlsClient> tls_;  // set on a TLS connection (TlsOptions::enabled)
  std::string address_;
  ConnectionOptions options_;
  int32_t next_correlation_id_ = 1;
  GatherWriter writer_;
  std::unique_ptr<std::byte[]> buffer_;
  std::size_t capacity_ = 0;
};

// Request framing into a WriteBuffer (the body in between is written with
// common/messages): begin_frame() appends a request header with a
// placeholder length and returns where the frame starts; end_frame() patches
// that length once the body is complete. Errors: the buffer's refused write.
Result<uint64_t> begin_frame(WriteBuffer& out, frame::ApiKey key, int16_t api_version,
                             int32_t correlation_id) noexcept;
void end_frame(WriteBuffer& out, uint64_t start) noexcept;

// Frames one whole request: begin_frame(), `encode_body(out)`, end_frame().
// On error `out` may hold a partial frame; the caller releases it.
template <typename EncodeBody>
Status write_frame(WriteBuffer& out, frame::ApiKey key, int16_t api_version, int32_t correlation_id,
                   EncodeBody&& encode_body) {
  Result<uint64_t> start = begin_frame(out, key, api_version, correlation_id);
  if (!start.ok()) return start.status();
  SPILLWAY_RETURN_IF_ERROR(encode_body(out));
  end_frame(out, *start);
  return Status::Ok();
}

// The addresses of a bootstrap list ("h1:p1,h2:p2"); check_bootstrap()
// (spillway/connection.h) validates it.
std::vector<std::string> split_bootstrap(std::string_view list);

// Splits "host:port" / "[v6]:port". Error: kInvalidArgument.
Status split_address(std::string_view address, std::string* host, std::string* port);

template <typename EncodeBody>
Result<std::vector<std::byte>> Channel::call(frame::ApiKey api_key, int16_t api_version,
                                             std::chrono::milliseconds timeout,
                                             EncodeBody&& encode_body) {
  if (!is_open()) return Status(ErrorCode::kNotConnected, address_ + ": connection is closed");
  std::byte scratch[512];  // control requests are small; a larger one spills to the pool
  WriteBuffer request(scratch);
  const int32_t correlation_id = next_correlation_id();
  SPILLWAY_RETURN_IF_ERROR(write_frame(request, api_key, api_version, correlation_id,
                                       std::forward<EncodeBody>(encode_body)));
  return exchange(request, correlation_id, timeout);
}

}  // namespace spillway::wire
