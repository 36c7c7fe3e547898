// Routes a request to the handler registered for its api key. The table is
// filled once at start (before any connection) and read concurrently by every
// network thread afterwards.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "exchange.h"
#include "spillway/common/api_versions.h"
#include "spillway/common/frame.h"
#include "spillway/common/status.h"

namespace spillway::broker {

// Handles one kind of request. handle() runs on the connection's thread; it
// must call exchange.finish() exactly once, then or later (on the
// exchange's thread, e.g. after another core replied). The request body is
// valid only during handle(): copy what must outlive it. A handler is shared
// by every thread and must be thread-safe; it must outlive the dispatcher.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual void handle(Exchange& exchange) = 0;
};

class Dispatcher {
 public:
  // Api keys the table can hold: 0 .. kMaxApiKeys-1.
  static constexpr size_t kMaxApiKeys = 64;

  // Registers `handler` for `key`, serving versions [min_version,
  // max_version]. Must be called before the first dispatch; registering a
  // key twice is a programming error.
  void add(frame::ApiKey key, int16_t min_version, int16_t max_version, Handler* handler);

  // Handles the request held by `exchange` (see Exchange::reset): unknown
  // keys and versions finish it at once with kUnsupportedVersion; others go
  // to their handler.
  void dispatch(Exchange& exchange) const;

  // The served keys and versions, in key order (the ApiVersions answer):
  // the first `count` entries of `out`. Returns count.
  size_t served(std::array<ApiVersionRange, kMaxApiKeys>& out) const;

 private:
  struct Entry {
    Handler* handler = nullptr;
    int16_t min_version = 0;
    int16_t max_version = -1;
  };
  // Ok when the request is servable; the error otherwise.
  Status check(const frame::RequestHeader& header) const;

  std::array<Entry, kMaxApiKeys> table_;
};

}  // namespace spillway::broker
