// MetadataCache: what the producer knows of each topic it sends to — its
// partition count, or why it has none — and which topics it must ask the
// broker about.
//
// Owns: one entry per topic asked for (never erased, so references stay
// valid). The request and the answer go through metadata.h, the one way the
// client encodes a Metadata request and reads its answer; the cache only
// decides what to ask and remembers what came back.
//
// Protocol: a sender marks a topic wanted and waits; the I/O thread, when
// request_due(), frames one request for every wanted topic not yet asked
// (write_request()), and later hands its answer to apply() (or, if the
// request was lost with its connection, calls request_lost(), and the
// topics are asked again). Every answer bumps the entry's `answers`, so a
// waiting sender sees an answer arrive even when it carried an error.
//
// Concurrency: none of its own; the producer calls it under its mutex.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::producer_internal {

class MetadataCache {
 public:
  struct Topic {
    std::string name;
    int32_t partitions = -1;  // -1 until an answer gives a count
    Status error;             // the last answer's error for the topic
    uint64_t answers = 0;     // answers applied to it
    bool wanted = false;      // to be asked
    bool asked = false;       // in the request outstanding
  };

  // The entry of `name`, added (unknown, not wanted) on first use.
  Topic& topic(std::string_view name);

  // Marks `t` to be asked in the next request.
  static void want(Topic& t) noexcept { t.wanted = true; }
  // True iff a wanted topic is not asked yet.
  bool request_due() const;

  // Frames a Metadata request (correlation id `correlation_id`) into `out`
  // for every wanted topic not yet asked, and marks them asked. Error: the
  // encoder's; nothing is marked, and `out` may hold a partial frame.
  Status write_request(WriteBuffer& out, int32_t correlation_id);
  // The request outstanding will not be answered: its topics are asked
  // again.
  void request_lost();
  // Applies the answer to the request outstanding — `request_error` (the
  // response was an error) or the response `body` — to each topic asked:
  // its partition count, or its error (the topic's own, kUnknownTopic when
  // the answer does not list it or it has no partitions, the request's
  // error, kCorruptMessage for a body that does not decode).
  void apply(Status request_error, std::span<const std::byte> body);

 private:
  std::map<std::string, std::unique_ptr<Topic>, std::less<>> topics_;
};

}  // namespace spillway::producer_internal
