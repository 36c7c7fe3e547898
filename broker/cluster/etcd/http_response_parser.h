// HttpResponseParser: an incremental parser of one HTTP/1.1 response, fed
// the bytes as they arrive from the socket. It decodes the body framing
// (Content-Length, chunked, or up to the end of the connection) and hands
// the body bytes to a sink as they come, so that a streaming response
// (etcd's watch: one JSON object per line in an endless chunked body) is
// usable before it ends.
//
// Every size is bounded before anything is kept: the status line and
// headers together (max_header_bytes), the whole body (max_body_bytes; for
// a stream that never ends this bounds what one exchange may carry), and a
// chunk size line. Any violation or malformed framing is an error Status
// (kCoordinationUnavailable: the only peer is etcd) and the parser stays
// failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "spillway/common/status.h"

namespace spillway::broker::cluster::etcd {

struct HttpLimits {
  size_t max_header_bytes = 64 * 1024;
  size_t max_body_bytes = 64 * 1024 * 1024;
};

class HttpResponseParser {
 public:
  // Receives decoded body bytes in order; `status_code` is the response's.
  // Returns false to stop the exchange (the parser then reports stopped()).
  using BodySink = std::function<bool(int status_code, std::string_view bytes)>;

  explicit HttpResponseParser(HttpLimits limits = {}) : limits_(limits) {}

  // Starts a new response; `sink` receives its body.
  void reset(BodySink sink);

  // Consumes `bytes`. Error on malformed or oversized input. Bytes after
  // the end of the response are counted in trailing_bytes() (nothing may
  // follow a response on a connection without pipelining).
  Status feed(std::string_view bytes);
  // The peer closed the connection: completes a body delimited by the end
  // of the connection; an error if the response is incomplete otherwise.
  Status feed_eof();

  bool complete() const { return state_ == State::kDone; }
  bool stopped() const { return stopped_; }
  int status_code() const { return status_code_; }
  // True when the connection may carry another request after this response.
  bool keep_alive() const { return keep_alive_ && trailing_bytes_ == 0; }
  size_t trailing_bytes() const { return trailing_bytes_; }

 private:
  enum class State { kHeaders, kBody, kChunkSize, kChunkData, kChunkDataEnd, kTrailers, kDone };
  enum class Framing { kLength, kChunked, kUntilClose };

  Status fail(std::string message);
  Status parse_headers();
  Status deliver(std::string_view bytes);
  // Pulls one CRLF-terminated line out of `bytes` into line_; true when
  // the line is complete (line_ holds it without CRLF).
  bool take_line(std::string_view& bytes, size_t max_line, Status& error);

  HttpLimits limits_;
  BodySink sink_;
  State state_ = State::kHeaders;
  Framing framing_ = Framing::kLength;
  std::string head_;  // status line and headers, until the blank line
  std::string line_;  // chunk size or trailer line being assembled
  int status_code_ = 0;
  bool keep_alive_ = true;
  bool stopped_ = false;
  bool failed_ = false;
  uint64_t remaining_ = 0;  // body bytes left (kLength) or chunk bytes left
  uint64_t body_bytes_ = 0;
  size_t trailing_bytes_ = 0;
};

}  // namespace spillway::broker::cluster::etcd
