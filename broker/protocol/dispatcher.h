// Routes a request to the handler registered for its api key and builds the
// response frame. The table is filled once at start (before any connection)
// and read concurrently by every network thread afterwards.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

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

class Dispatcher {
 public:
  // Api keys the table can hold: 0 .. kMaxApiKeys-1.
  static constexpr size_t kMaxApiKeys = 64;

  // Registers `handler` for `key`, serving versions [min_version,
  // max_version]. Must be called before the first dispatch; registering a
  // key twice is a programming error.
  void add(frame::ApiKey key, int16_t min_version, int16_t max_version, Handler handler);

  // Builds the complete response frame (header and body) for one request
  // into `out` (cleared first). An unknown api key or version yields an
  // kUnsupportedVersion error response; the connection stays usable.
  void dispatch(const frame::RequestHeader& header, std::span<const std::byte> body,
                std::vector<std::byte>& out) const;

  // The served keys and versions, in key order (the ApiVersions answer).
  std::vector<ApiVersionRange> served() const;

 private:
  struct Entry {
    Handler handler;
    int16_t min_version = 0;
    int16_t max_version = -1;
  };
  std::array<Entry, kMaxApiKeys> table_;
};

// Writes an error response frame for `correlation_id` into `out`.
void encode_error_frame(int32_t correlation_id, const Status& status, std::vector<std::byte>& out);

}  // namespace spillway::broker
