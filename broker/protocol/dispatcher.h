// Routes a request to the handler registered for its api key. The table is
// filled once at start (before any connection) and read concurrently by every
// network thread afterwards.
//
// Two kinds of handler: an AsyncHandler gets the Exchange and may finish it
// later, from another core's post-back (Produce, Fetch, ...); a synchronous
// Handler (small control requests such as ApiVersions) fills a vector and
// returns.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "exchange.h"
#include "spillway/common/api_versions.h"
#include "spillway/common/frame.h"
#include "spillway/common/status.h"

namespace spillway::broker {

struct Request {
  const frame::RequestHeader& header;
  std::span<const std::byte> body;  // valid only during the handler call
};

// Appends the response body for `request` to `out` and returns Ok, or
// returns an error Status that becomes an error response (whatever was
// appended is discarded). Runs on the connection's network thread.
using Handler = std::function<Status(const Request& request, std::vector<std::byte>& out)>;

// A handler that may complete asynchronously. handle() runs on the
// connection's thread; it must call exchange.finish() exactly once, then or
// later (on the exchange's thread). The request body is valid only during
// handle(): copy what must outlive it. Implementations are shared by every
// thread and must be thread-safe.
class AsyncHandler {
 public:
  virtual ~AsyncHandler() = default;
  virtual void handle(Exchange& exchange) = 0;
};

class Dispatcher {
 public:
  // Api keys the table can hold: 0 .. kMaxApiKeys-1.
  static constexpr size_t kMaxApiKeys = 64;

  // Registers `handler` for `key`, serving versions [min_version,
  // max_version]. Must be called before the first dispatch; registering a
  // key twice is a programming error.
  void add(frame::ApiKey key, int16_t min_version, int16_t max_version, Handler handler);
  // The same for an asynchronous handler, which must outlive the dispatcher.
  void add(frame::ApiKey key, int16_t min_version, int16_t max_version, AsyncHandler* handler);

  // Handles the request held by `exchange` (see Exchange::reset): unknown
  // keys and versions finish it at once with kUnsupportedVersion; others go
  // to their handler.
  void dispatch(Exchange& exchange) const;

  // Synchronous form for synchronous handlers (tests): builds the complete
  // response frame into `out` (cleared first). An asynchronous handler's key
  // is answered with kUnsupportedVersion here.
  void dispatch(const frame::RequestHeader& header, std::span<const std::byte> body,
                std::vector<std::byte>& out) const;

  // The served keys and versions, in key order (the ApiVersions answer).
  std::vector<ApiVersionRange> served() const;

 private:
  struct Entry {
    Handler handler;
    AsyncHandler* async = nullptr;
    int16_t min_version = 0;
    int16_t max_version = -1;
    bool served() const { return handler || async; }
  };
  // Null when the request is servable; the error otherwise.
  Status check(const frame::RequestHeader& header) const;

  std::array<Entry, kMaxApiKeys> table_;
};

// Writes an error response frame for `correlation_id` into `out`.
void encode_error_frame(int32_t correlation_id, const Status& status, std::vector<std::byte>& out);

}  // namespace spillway::broker
