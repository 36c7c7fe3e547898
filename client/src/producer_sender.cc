// Sender: the producer's I/O thread (see producer_sender.h).
#include "producer_sender.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "producer_impl.h"
#include "producer_staging.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/messages/produce_writer.h"
#include "spillway/common/messages/producer_id.h"

namespace spillway::producer_internal {

namespace {

// Largest Produce request the producer frames (one batch may still pass it).
constexpr std::size_t kMaxRequestBytes = 8u << 20;

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

Sender::Sender(Producer::Impl& producer)
    : producer_(producer),
      in_flight_(static_cast<std::size_t>(producer.options.max_in_flight)),
      idempotent_(producer.options.enable_idempotence) {}

void Sender::run() {
  Producer::Impl& p = producer_;
  for (;;) {
    Batch* done = nullptr;  // batches completed this round, callbacks pending
    std::unique_lock lk(p.mu);
    const Clock::time_point now = Clock::now();
    // Fail what outlived its delivery deadline, and everything queued once
    // close()'s deadline has passed.
    const bool closing_over = p.stop && now >= p.stop_deadline;
    for (Batch* b = p.accumulator.take_expired(now, closing_over); b;) {
      Batch* next = std::exchange(b->next, nullptr);
      std::string why = closing_over ? "the producer closed before the record was acknowledged"
                                     : "record not acknowledged within the delivery timeout";
      if (!p.last_transport_error.ok()) {
        why += " (" + std::string(p.last_transport_error.message()) + ")";
      }
      complete(b, Status(closing_over ? ErrorCode::kShuttingDown : ErrorCode::kTimeout, why),
               kNoOffset, &done);
      b = next;
    }
    const bool idle = p.accumulator.idle();
    if (p.stop && idle && in_flight_.empty()) {
      lk.unlock();
      run_callbacks(done);
      return;
    }
    // Connect when there is something to send; an idle producer whose
    // connection the broker closed stays disconnected until then.
    if (!channel_.is_open() && (!idle || p.metadata.request_due()) && now >= reconnect_at_) {
      lk.unlock();
      Status st =
          channel_.connect(p.options.bootstrap, {.connect_timeout = p.options.connect_timeout,
                                                 .request_timeout = p.options.request_timeout,
                                                 .max_response_bytes = p.options.max_response_bytes,
                                                 .client_id = "spillway-producer",
                                                 .security = p.options.security});
      lk.lock();
      if (!st.ok()) reconnect_at_ = Clock::now() + p.options.retry_backoff;
      p.last_transport_error = std::move(st);
    }
    Batch* to_send = nullptr;
    if (channel_.is_open() && !in_flight_.full()) {
      if (idempotent_ && producer_id_ < 0) {
        // Nothing is produced before the producer id is known.
        if (!producer_id_requested_) {
          const int32_t id = channel_.next_correlation_id();
          Status st =
              wire::write_frame(request_, frame::ApiKey::kInitProducerId,
                                messages::kInitProducerIdVersion, id, [](WriteBuffer& body) {
                                  return messages::encode_init_producer_id_request({}, body);
                                });
          if (st.ok()) {
            in_flight_.push(
                {.correlation_id = id, .kind = RequestKind::kInitProducerId, .sent = now});
            producer_id_requested_ = true;
          } else {
            request_.release();
          }
        }
      } else if (p.metadata.request_due()) {
        // If it cannot be framed, its topics are asked again next round.
        const int32_t id = channel_.next_correlation_id();
        if (p.metadata.write_request(request_, id).ok()) {
          in_flight_.push({.correlation_id = id, .kind = RequestKind::kMetadata, .sent = now});
        } else {
          request_.release();
        }
      } else {
        const Linger linger = p.flushing > 0 || p.stop ? Linger::kSkip : Linger::kWait;
        to_send = p.accumulator.drain_ready(now, linger, kMaxRequestBytes);
        if (to_send) {
          assign_sequences(to_send);
          in_flight_.push({.correlation_id = channel_.next_correlation_id(),
                           .kind = RequestKind::kProduce,
                           .batches = to_send,
                           .sent = now});
        }
      }
    }
    const Clock::time_point due = next_due(Clock::now());
    lk.unlock();

    if (to_send) build_produce_request(to_send, &done);
    if (request_.bytes_written() > 0) {
      Status st = channel_.send(request_);
      request_.release();
      if (!st.ok()) {
        std::lock_guard relock(p.mu);
        disconnect(std::move(st), &done);
      }
    }
    run_callbacks(std::exchange(done, nullptr));
    wait_and_read(due, &done);
    run_callbacks(done);
  }
}

void Sender::build_produce_request(Batch* batches, Batch** done) {
  const ProducerOptions& o = producer_.options;
  batch::BuilderOptions bo;
  bo.compression = o.compression == ProducerCompression::kZstd ? batch::Compression::kZstd
                                                               : batch::Compression::kNone;
  bo.zstd_level = o.zstd_level;
  Status st = wire::write_frame(request_, frame::ApiKey::kProduce, messages::kProduceVersion,
                                in_flight_.newest().correlation_id, [&](WriteBuffer& out) {
                                  // Each batch is built straight into the request, between the
                                  // writer's begin_partition() and end_partition().
                                  messages::ProduceRequestWriter w(
                                      out, static_cast<messages::Acks>(static_cast<int8_t>(o.acks)),
                                      static_cast<int32_t>(o.request_timeout.count()));
                                  const TopicQueues* topic = nullptr;
                                  for (Batch* b = batches; b; b = b->next) {
                                    if (b->topic != topic) {
                                      topic = b->topic;
                                      w.begin_topic(topic->name);
                                    }
                                    w.begin_partition(b->partition.value());
                                    SPILLWAY_RETURN_IF_ERROR(w.status());
                                    bo.producer_id = b->producer_id;
                                    bo.producer_epoch = b->producer_epoch;
                                    bo.base_sequence = b->base_sequence;
                                    SPILLWAY_RETURN_IF_ERROR(builder_.start(out, bo));
                                    Status appended;
                                    for_each_entry(b->staging, [&](const Entry& e) {
                                      if (appended.ok()) appended = builder_.append(e.record);
                                    });
                                    SPILLWAY_RETURN_IF_ERROR(appended);
                                    Result<std::size_t> size = builder_.finish();
                                    if (!size.ok()) return size.status();
                                    w.end_partition();
                                  }
                                  return w.finish();
                                });
  if (st.ok()) return;
  // Cannot frame the request (no pooled memory): fail its batches rather
  // than send a partial one.
  request_.release();
  std::lock_guard lk(producer_.mu);
  in_flight_.drop_newest();
  for (Batch* b = batches; b;) {
    Batch* next = b->next;
    producer_.accumulator.finished(b);
    complete(b, Status(st.code(), "cannot build the produce request: " + std::string(st.message())),
             kNoOffset, done);
    b = next;
  }
}

void Sender::wait_and_read(Clock::time_point due, Batch** done) {
  const ProducerOptions& o = producer_.options;
  auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now());
  wait = std::clamp(wait, std::chrono::milliseconds(0), std::chrono::milliseconds(100));
  bool readable = false;
  if (channel_.is_open()) {
    // Readable with nothing in flight means the broker closed an idle
    // connection (EOF); reading it notices and closes our side.
    readable = channel_.wait_readable(wait, producer_.wake_fd);
  } else {
    pollfd pfd{producer_.wake_fd, POLLIN, 0};
    ::poll(&pfd, 1, static_cast<int>(wait.count()));
  }
  uint64_t drained;
  [[maybe_unused]] ssize_t r = ::read(producer_.wake_fd, &drained, sizeof(drained));
  if (!readable && Clock::now() >= in_flight_.next_timeout(o.request_timeout)) {
    std::lock_guard lk(producer_.mu);
    disconnect(Status(ErrorCode::kTimeout, channel_.address() + ": no response within " +
                                               std::to_string(o.request_timeout.count()) + " ms"),
               done);
    return;
  }
  if (!readable) return;
  Result<wire::Response> response = channel_.read_response();
  std::lock_guard lk(producer_.mu);
  if (!response.ok()) {
    disconnect(response.status(), done);
  } else {
    handle_response(*response, done);
  }
}

void Sender::disconnect(Status why, Batch** done) {
  channel_.close();
  reconnect_at_ = Clock::now() + producer_.options.retry_backoff;
  while (!in_flight_.empty()) {
    const InFlight f = in_flight_.pop_oldest();
    if (f.kind == RequestKind::kMetadata) producer_.metadata.request_lost();
    if (f.kind == RequestKind::kInitProducerId) producer_id_requested_ = false;
    for (Batch* b = f.batches; b;) {
      Batch* next = b->next;
      producer_.accumulator.finished(b);
      complete(b, why, kNoOffset, done);
      b = next;
    }
  }
  producer_.last_transport_error = std::move(why);
}

void Sender::handle_response(const wire::Response& response, Batch** done) {
  InFlight f;
  if (!in_flight_.take_answered(response.correlation_id, &f)) {
    disconnect(Status(ErrorCode::kCorruptMessage,
                      channel_.address() + ": response to an unknown request (correlation id " +
                          std::to_string(response.correlation_id) + ")"),
               done);
    return;
  }
  Status request_error;
  if (response.error != ErrorCode::kOk) {
    request_error = frame::decode_error_body(response.error, response.body);
  }
  if (f.kind == RequestKind::kMetadata) {
    producer_.metadata.apply(std::move(request_error), response.body);
    producer_.cv.notify_all();
    return;
  }
  if (f.kind == RequestKind::kInitProducerId) {
    handle_producer_id(std::move(request_error), response.body);
    return;
  }
  Batch* b = f.batches;
  Status st = request_error;
  if (st.ok()) {
    Result<messages::ProduceResponse> decoded = messages::decode_produce_response(response.body);
    st = decoded.status();
    if (st.ok()) {
      for (const messages::ProduceTopicResult& t : decoded->topics) {
        for (const messages::ProducePartitionResult& r : t.results) {
          if (!b) break;
          if (t.name != b->topic->name || PartitionId(r.partition) != b->partition) continue;
          Batch* next = b->next;
          producer_.accumulator.finished(b);
          if (r.error_code == ErrorCode::kOk) {
            complete(b, Status::Ok(),
                     producer_.options.acks == Acks::kNone ? kNoOffset : Offset(r.base_offset),
                     done);
          } else {
            complete(b,
                     Status(r.error_code, r.error_message.empty()
                                              ? std::string(error_code_name(r.error_code))
                                              : std::string(r.error_message)),
                     kNoOffset, done);
          }
          b = next;
        }
      }
    }
    if (st.ok() && b)
      st = Status(ErrorCode::kCorruptMessage, "produce response is missing results");
  }
  while (b) {  // what the response did not answer fails with its error
    Batch* next = b->next;
    producer_.accumulator.finished(b);
    complete(b, st, kNoOffset, done);
    b = next;
  }
}

void Sender::handle_producer_id(Status request_error, std::span<const std::byte> body) {
  producer_id_requested_ = false;
  Status st = std::move(request_error);
  if (st.ok()) {
    Result<messages::InitProducerIdResponse> r = messages::decode_init_producer_id_response(body);
    if (r.ok() && r->producer_id >= 0 && r->producer_epoch >= 0) {
      producer_id_ = r->producer_id;
      producer_epoch_ = r->producer_epoch;
      return;
    }
    st = r.ok() ? Status(ErrorCode::kCorruptMessage, "InitProducerId: no producer id") : r.status();
  }
  if (retriable(st.code())) return;  // asked again next round
  // A broker that hands out no producer ids (one older than idempotence):
  // the producer carries on at least once rather than not at all.
  idempotent_ = false;
}

void Sender::assign_sequences(Batch* batches) {
  if (!idempotent_) return;
  for (Batch* b = batches; b; b = b->next) {
    if (b->base_sequence >= 0) continue;  // a retry keeps its numbers
    PartitionQueue& q = b->topic->queue(b->partition);
    if (q.sequence_producer_id != producer_id_) {
      q.sequence_producer_id = producer_id_;
      q.next_sequence = 0;
    }
    b->producer_id = producer_id_;
    b->producer_epoch = producer_epoch_;
    b->base_sequence = q.next_sequence;
    // Sequences wrap from INT32_MAX to 0, as the broker counts them.
    const int64_t next = int64_t{q.next_sequence} + b->count;
    q.next_sequence = static_cast<int32_t>(next > INT32_MAX ? next - INT32_MAX - 1 : next);
  }
}

void Sender::complete(Batch* b, const Status& st, Offset base_offset, Batch** done) {
  const ProducerOptions& o = producer_.options;
  const Clock::time_point now = Clock::now();
  if (!st.ok() && retriable(st.code()) && b->attempts < o.retries && now < b->deadline &&
      !(producer_.stop && now >= producer_.stop_deadline)) {
    ++b->attempts;
    b->retry_at = now + o.retry_backoff;
    producer_.accumulator.requeue_front(b);
    return;
  }
  b->error = st;  // copies (allocates) only on failure
  b->base_offset = base_offset;
  if (!st.ok() && b->base_sequence >= 0 && b->producer_id == producer_id_) {
    // Whether the broker stored it is unknown (or it refused it): the
    // partition's next sequence cannot be known either, so later batches
    // go out under a new producer id, numbered from 0.
    producer_id_ = -1;
  }
  push_front(done, b);
  // Everything queued for the partition was sent after `b`: no holes.
  if (!st.ok()) producer_.accumulator.fence(*b->topic, b->partition, st, done);
}

Clock::time_point Sender::next_due(Clock::time_point now) const {
  const Producer::Impl& p = producer_;
  const Clock::time_point due = now + std::chrono::milliseconds(100);
  if (!channel_.is_open()) return std::min(due, reconnect_at_);
  const Clock::time_point limit = std::min(due, in_flight_.next_timeout(p.options.request_timeout));
  if (in_flight_.full()) return p.accumulator.next_expiry(limit);
  if (p.metadata.request_due()) return now;
  return p.accumulator.next_due(limit, p.flushing > 0 || p.stop ? Linger::kSkip : Linger::kWait);
}

void Sender::run_callbacks(Batch* done) {
  if (!done) return;
  Batch* ordered = nullptr;  // oldest first
  while (done) push_front(&ordered, std::exchange(done, done->next));
  uint64_t records = 0;
  for (Batch* b = ordered; b; b = b->next) {
    Offset offset = b->base_offset;  // of each record in turn, when known
    for_each_entry(b->staging, [&](const Entry& e) {
      if (e.cb.fn) {
        e.cb.fn(e.cb.context, b->error,
                RecordMetadata{.topic = b->topic->name,
                               .partition = b->partition.value(),
                               .offset = offset.value(),
                               .timestamp = e.timestamp});
      }
      if (offset != kNoOffset) offset = offset.next();
    });
    records += static_cast<uint64_t>(b->count);
  }
  std::lock_guard lk(producer_.mu);
  while (ordered) {
    Batch* b = std::exchange(ordered, ordered->next);
    if (!b->error.ok()) producer_.tally.note_failure(b->error);
    producer_.accumulator.release(b);
  }
  producer_.tally.completed += records;
  producer_.cv.notify_all();
}

}  // namespace spillway::producer_internal
