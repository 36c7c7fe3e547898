// Channel: one blocking TCP connection to a broker for the Producer's I/O
// thread and the Consumer. Requests go out as one gather write of a
// WriteBuffer's segment table through the GatherWriter (io_uring, writev
// fallback); responses are read whole into a buffer the channel keeps and
// reuses, so a steady stream of requests allocates nothing.
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

#include "spillway/common/frame.h"
#include "spillway/common/gather_writer.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::wire {

struct Response {
  int32_t correlation_id = 0;
  ErrorCode error = ErrorCode::kOk;
  // The body: valid until the next read_response() or close(). For an
  // error response, the error body (see frame::decode_error_body).
  std::span<const std::byte> body;
};

class Channel {
 public:
  Channel() = default;
  ~Channel() { close(); }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Connects to "host:port" within `timeout`; reads block at most
  // `io_timeout` before failing with kTimeout. Errors: kInvalidArgument
  // (malformed address), kNotConnected, kTimeout.
  Status connect(std::string_view address, std::chrono::milliseconds timeout,
                 std::chrono::milliseconds io_timeout);
  bool is_open() const noexcept { return fd_ >= 0; }
  int fd() const noexcept { return fd_; }
  void close() noexcept;

  // Sends every byte of `request` (one or more whole frames). A failure
  // closes the channel (kNotConnected).
  Status send(WriteBuffer& request) noexcept;

  // Reads one whole response frame. Blocks up to the io timeout
  // (kTimeout), fails with kNotConnected when the peer closes,
  // kFrameTooLarge above `max_bytes`; every failure closes the channel.
  Result<Response> read_response(uint32_t max_bytes);

  // Waits until a response can be read or `timeout` passes (or `wake_fd`,
  // if >= 0, is readable). Returns true iff the socket is readable.
  bool wait_readable(std::chrono::milliseconds timeout, int wake_fd) noexcept;

  const std::string& address() const noexcept { return address_; }

  // Sizes the response buffer for responses up to `bytes` now, so that
  // later reads do not grow it (pages are only touched when used).
  void reserve(std::size_t bytes);

 private:
  Status read_exactly(std::byte* dst, std::size_t n);

  int fd_ = -1;
  std::string address_;
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

// Splits "host:port" / "[v6]:port". Error: kInvalidArgument.
Status split_address(std::string_view address, std::string* host, std::string* port);

}  // namespace spillway::wire
