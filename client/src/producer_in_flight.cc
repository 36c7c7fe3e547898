// In-flight request tracking on the producer's I/O thread: matching each
// response to the oldest outstanding request, completing its batches, and
// putting a batch that failed retriably back at the FRONT of its partition
// (nothing of that partition was in flight meanwhile, so order holds across
// retries and reconnects). Completed batches run their callbacks without the
// lock, oldest first, then return to the pool.
#include <string>
#include <utility>

#include "producer_impl.h"
#include "producer_staging.h"
#include "spillway/common/messages/produce.h"

namespace spillway {

namespace {

bool retriable(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNotConnected:
    case ErrorCode::kTimeout:
    case ErrorCode::kShuttingDown:
    case ErrorCode::kTooManyRequests:
    case ErrorCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

}  // namespace

// The connection is gone: every in-flight request fails with `why`
// (retriable, so their batches go back to the front of their partitions).
void Producer::Impl::disconnect(Status why, Batch** done) {
  channel.close();
  last_transport_error = why;
  reconnect_at = Clock::now() + options.retry_backoff;
  while (ring.size() > 0) {
    const producer_internal::InFlight f = ring.pop_oldest();
    if (f.metadata) {
      for (auto& [name, t] : topics) t->metadata_in_flight = false;
      continue;
    }
    Batch* b = f.batches;
    while (b) {
      Batch* next = b->next;
      b->topic->parts[static_cast<std::size_t>(b->partition)].in_flight = false;
      complete(b, why, -1, done);
      b = next;
    }
  }
}

void Producer::Impl::handle_response(const wire::Response& response, Batch** done) {
  if (ring.size() == 0 || ring.at(0).correlation_id != response.correlation_id) {
    disconnect(Status(ErrorCode::kCorruptMessage,
                      channel.address() + ": response to an unknown request (correlation id " +
                          std::to_string(response.correlation_id) + ")"),
               done);
    return;
  }
  const producer_internal::InFlight f = ring.pop_oldest();
  Status request_error;
  if (response.error != ErrorCode::kOk) {
    request_error = frame::decode_error_body(response.error, response.body);
  }
  if (f.metadata) {
    apply_metadata(std::move(request_error), response.body);
    return;
  }
  Batch* b = f.batches;
  Status st;
  if (request_error.ok()) {
    Result<messages::ProduceResponse> decoded = messages::decode_produce_response(response.body);
    st = decoded.status();
    if (st.ok()) {
      for (const messages::ProduceTopicResult& t : decoded->topics) {
        for (const messages::ProducePartitionResult& r : t.results) {
          if (!b) break;
          if (t.name != b->topic->name || r.partition != b->partition) continue;
          Batch* next = b->next;
          b->topic->parts[static_cast<std::size_t>(b->partition)].in_flight = false;
          if (r.error_code == ErrorCode::kOk) {
            complete(b, Status::Ok(), options.acks == Acks::kNone ? -1 : r.base_offset, done);
          } else {
            complete(b,
                     Status(r.error_code, r.error_message.empty()
                                              ? std::string(error_code_name(r.error_code))
                                              : std::string(r.error_message)),
                     -1, done);
          }
          b = next;
        }
      }
    }
    if (st.ok() && b) {
      st = Status(ErrorCode::kCorruptMessage, "produce response is missing results");
    }
  } else {
    st = request_error;
  }
  while (b) {  // what the response did not answer fails with its error
    Batch* next = b->next;
    b->topic->parts[static_cast<std::size_t>(b->partition)].in_flight = false;
    complete(b, st, -1, done);
    b = next;
  }
}

// Completes batch `b` (not queued, not in flight): a retriable failure with
// attempts and time left puts it back at the front of its partition;
// otherwise it joins `done` for its callbacks, and a failure fences its
// partition (everything queued there was sent after `b`).
void Producer::Impl::complete(Batch* b, const Status& st, int64_t base_offset, Batch** done) {
  const Clock::time_point now = Clock::now();
  if (!st.ok() && retriable(st.code()) && b->attempts < options.retries && now < b->deadline &&
      !(stop && now >= stop_deadline)) {
    ++b->attempts;
    b->retry_at = now + options.retry_backoff;
    PartitionState& p = b->topic->parts[static_cast<std::size_t>(b->partition)];
    b->next = p.head;
    p.head = b;
    if (!p.tail) p.tail = b;
    return;
  }
  if (!st.ok()) note_failure(st, static_cast<uint64_t>(b->count));
  b->error = st;  // copies (allocates) only on failure
  b->base_offset = base_offset;
  b->next = *done;
  *done = b;
  if (!st.ok()) fence(b->topic, b->partition, st, done);
}

// Runs the callbacks of the completed batches (oldest first) without the
// lock, then recycles the batches.
void Producer::Impl::run_callbacks(Batch* done) {
  if (!done) return;
  Batch* ordered = nullptr;
  while (done) {
    Batch* next = done->next;
    done->next = ordered;
    ordered = done;
    done = next;
  }
  uint64_t records = 0;
  for (Batch* b = ordered; b; b = b->next) {
    int64_t offset = b->base_offset;
    producer_internal::for_each_entry(b->staging, [&](const producer_internal::Entry& e) {
      if (e.cb.fn) {
        e.cb.fn(e.cb.context, b->error,
                RecordMetadata{b->topic->name, b->partition, offset, e.timestamp});
      }
      if (offset >= 0) ++offset;
    });
    records += static_cast<uint64_t>(b->count);
  }
  std::lock_guard lk(mu);
  while (ordered) {
    Batch* next = ordered->next;
    buffered -= ordered->bytes;
    free_batch(ordered);
    ordered = next;
  }
  completed += records;
  cv.notify_all();
}

}  // namespace spillway
