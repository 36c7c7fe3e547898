// Routes a request to the handler registered for its api key. Each listener
// has one dispatcher, for the protocol it speaks: the native protocol
// (docs/protocol.md) or Kafka's (docs/kafka.md). The table is filled once at
// start (before any connection) and read concurrently by every network
// thread afterwards.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "exchange.h"
#include "spillway/common/api_versions.h"
#include "spillway/common/frame.h"
#include "spillway/common/kafka/api_keys.h"
#include "spillway/common/log.h"
#include "spillway/common/status.h"

namespace spillway::broker {

enum class Protocol : uint8_t { kNative, kKafka };

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
  // Api keys the table can hold: 0 .. kMaxApiKeys-1 (Kafka's reach the 70s).
  static constexpr size_t kMaxApiKeys = 128;

  explicit Dispatcher(Protocol protocol = Protocol::kNative) : protocol_(protocol) {}

  Protocol protocol() const { return protocol_; }

  // Registers `handler` for `key`, serving versions [min_version,
  // max_version]. Must be called before the first dispatch; registering a
  // key twice is a programming error. A handler registered with
  // `any_version` also gets requests outside its range (Kafka's
  // ApiVersions answers those itself, in its v0 layout).
  void add(frame::ApiKey key, int16_t min_version, int16_t max_version, Handler* handler);
  void add(kafka::ApiKey key, int16_t min_version, int16_t max_version, Handler* handler,
           bool any_version = false);

  // How the response to `header` is framed on this dispatcher's protocol.
  Exchange::Framing framing(const frame::RequestHeader& header) const;

  // True when `header`'s request must see every earlier request of its
  // connection answered before it is handled: Kafka's Metadata. Requests
  // are otherwise handled as they arrive (pipelined) and answered in order,
  // so a Metadata handled on arrival behind a long request (an acks=all
  // produce, a long poll) would describe the cluster as it was seconds
  // before its answer is sent; Kafka handles one request per connection
  // at a time, and clients take the last answer to arrive as the truth.
  bool waits_for_earlier(const frame::RequestHeader& header) const {
    return protocol_ == Protocol::kKafka &&
           header.api_key == static_cast<int16_t>(kafka::ApiKey::kMetadata);
  }

  // Handles the request held by `exchange` (see Exchange::reset). Native:
  // unknown keys and versions finish it at once with kUnsupportedVersion.
  // Kafka: the rest of the request header (client id, tags) is read off the
  // body first; a request whose header is malformed, or whose key or version
  // is not served, cannot be answered in Kafka's protocol and closes the
  // connection (as Kafka does), except ApiVersions.
  void dispatch(Exchange& exchange) const;

  // The served keys and versions, in key order (the ApiVersions answers):
  // the first `count` entries of `out`. Returns count.
  size_t served(std::array<ApiVersionRange, kMaxApiKeys>& out) const;

 private:
  struct Entry {
    Handler* handler = nullptr;
    int16_t min_version = 0;
    int16_t max_version = -1;
    bool any_version = false;
  };
  void add_entry(int16_t key, int16_t min_version, int16_t max_version, Handler* handler,
                 bool any_version);
  // Ok when the request is servable; the error otherwise.
  Status check(const frame::RequestHeader& header) const;
  const char* api_name(int16_t key) const;
  // ApiVersions and the SASL requests: what a connection that has not
  // authenticated yet may send.
  bool served_before_authentication(int16_t key) const;
  void dispatch_kafka(Exchange& exchange, const Entry* entry, const Status& servable) const;

  const Protocol protocol_;
  std::array<Entry, kMaxApiKeys> table_;
};

}  // namespace spillway::broker
