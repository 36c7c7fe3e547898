// Producer: per-partition accumulation on the caller's thread, batching,
// framing, sending and completion on one I/O thread (see producer.h).
//
// Shared state is guarded by one mutex. A record is staged as one contiguous
// entry in its batch's pooled WriteBuffer:
//   [u32 size][i64 timestamp][callback fn][callback context]
//   [i32 key length (-1 none)][key][i32 value length][value]
//   [i32 header count]{[u16 key length][key][i32 value length][value]}*
// Once a batch is sealed (full, lingered, flushed) only the I/O thread
// touches it; it is built into a RecordBatch v2 inside the Produce request.
#include "spillway/producer.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "channel.h"
#include "metadata.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/endian.h"
#include "spillway/common/key_partitioner.h"
#include "spillway/common/messages/metadata.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/messages/produce_writer.h"

namespace spillway {

namespace {

using Clock = std::chrono::steady_clock;

struct TopicState;

struct Batch {
  Batch* next = nullptr;  // partition queue, request list or free list
  WriteBuffer staging{std::span<std::byte>()};
  TopicState* topic = nullptr;
  int32_t partition = 0;
  int32_t count = 0;
  std::size_t bytes = 0;  // staged entry bytes, an estimate of the batch size
  Clock::time_point created;
  Clock::time_point deadline;
  Clock::time_point retry_at;
  int attempts = 0;
  bool sealed = false;
  int64_t base_offset = -1;  // the outcome, once complete
  Status error;
};

struct PartitionState {
  Batch* head = nullptr;  // oldest queued batch; the tail may still be open
  Batch* tail = nullptr;
  bool in_flight = false;  // at most one batch per partition on the wire
};

struct TopicState {
  std::string name;
  int32_t partitions = -1;  // -1 until metadata answers
  bool metadata_wanted = false;
  bool metadata_in_flight = false;
  uint64_t metadata_generation = 0;  // bumped by every metadata answer
  Status metadata_error;
  std::vector<PartitionState> parts;
  int32_t sticky = 0;  // partition for keyless records
};

struct InFlight {
  int32_t correlation_id = 0;
  bool metadata = false;
  Batch* batches = nullptr;  // in request order
  Clock::time_point sent;
};

constexpr std::size_t kEntryFixed = 4 + 8 + sizeof(void*) * 2 + 4 + 4 + 4;
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

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One decoded staging entry.
struct Entry {
  int64_t timestamp;
  DeliveryCallback cb;
  batch::RecordInput record;
  batch::RecordHeaderInput headers[Producer::kMaxHeaders];
};

// Decodes the entry at `p` (written by stage()); returns its size.
std::size_t decode_entry(const std::byte* p, Entry* e) {
  const uint32_t size = load_be<uint32_t>(p);
  const std::byte* q = p + 4;
  e->timestamp = static_cast<int64_t>(load_be<uint64_t>(q));
  q += 8;
  std::memcpy(&e->cb.fn, q, sizeof(void*));
  q += sizeof(void*);
  std::memcpy(&e->cb.context, q, sizeof(void*));
  q += sizeof(void*);
  batch::RecordInput& r = e->record;
  r = batch::RecordInput{};
  r.timestamp = e->timestamp;
  const int32_t klen = static_cast<int32_t>(load_be<uint32_t>(q));
  q += 4;
  r.key_is_null = klen < 0;
  if (klen > 0) r.key = {q, static_cast<std::size_t>(klen)};
  if (klen > 0) q += klen;
  const int32_t vlen = static_cast<int32_t>(load_be<uint32_t>(q));
  q += 4;
  r.value = {q, static_cast<std::size_t>(vlen)};
  q += vlen;
  const int32_t hcount = static_cast<int32_t>(load_be<uint32_t>(q));
  q += 4;
  for (int32_t i = 0; i < hcount; ++i) {
    const uint16_t hk = load_be<uint16_t>(q);
    q += 2;
    e->headers[i].key = {q, hk};
    q += hk;
    const int32_t hv = static_cast<int32_t>(load_be<uint32_t>(q));
    q += 4;
    e->headers[i].value = {q, static_cast<std::size_t>(hv)};
    e->headers[i].value_is_null = false;
    q += hv;
  }
  r.headers = {e->headers, static_cast<std::size_t>(hcount)};
  return size;
}

// Calls fn(const Entry&) for every entry staged in `b`, in order.
template <typename Fn>
void for_each_entry(Batch& b, Fn&& fn) {
  Entry e;
  for (const iovec& chunk : b.staging.segments()) {
    const auto* p = static_cast<const std::byte*>(chunk.iov_base);
    const auto* end = p + chunk.iov_len;
    while (p < end) {
      p += decode_entry(p, &e);
      fn(static_cast<const Entry&>(e));
    }
  }
}

}  // namespace

struct Producer::Impl {
  explicit Impl(ProducerOptions o) : options(std::move(o)), ring(options.max_in_flight) {}
  ~Impl() {
    if (wake_fd >= 0) ::close(wake_fd);
    for (Batch* b : all_batches) delete b;
  }

  const ProducerOptions options;

  std::mutex mu;
  std::condition_variable cv;  // metadata answers, completions
  std::map<std::string, std::unique_ptr<TopicState>, std::less<>> topics;
  Batch* free_batches = nullptr;
  std::vector<Batch*> all_batches;
  uint64_t accepted = 0;   // sends taken (including those failed at once)
  uint64_t completed = 0;  // callbacks run
  uint64_t failed = 0;
  std::size_t buffered = 0;     // staged entry bytes not yet completed
  Status first_error;           // of any record since creation
  Status first_error_in_flush;  // since the last flush() returned
  int flushing = 0;
  bool closed = false;  // no more sends
  bool stop = false;    // the I/O thread should finish
  Clock::time_point stop_deadline;
  int wake_fd = -1;

  // Owned by the I/O thread.
  std::thread io;
  wire::Channel channel;
  std::vector<InFlight> ring;  // circular, max_in_flight entries
  std::size_t ring_head = 0;
  std::size_t ring_size = 0;  // read under mu by the I/O thread only
  int32_t next_correlation_id = 1;
  Clock::time_point reconnect_at{};
  Status last_transport_error;
  WriteBuffer request{std::span<std::byte>()};
  batch::BatchBuilder builder;

  void wake() {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t r = ::write(wake_fd, &one, sizeof(one));
  }

  Batch* new_batch(TopicState* t, int32_t partition, Clock::time_point now) {
    Batch* b = free_batches;
    if (b) {
      free_batches = b->next;
    } else {
      b = new Batch;
      all_batches.push_back(b);
    }
    b->next = nullptr;
    b->topic = t;
    b->partition = partition;
    b->count = 0;
    b->bytes = 0;
    b->created = now;
    b->deadline = now + options.delivery_timeout;
    b->retry_at = now;
    b->attempts = 0;
    b->sealed = false;
    b->base_offset = -1;
    b->error = Status::Ok();
    return b;
  }
  void free_batch(Batch* b) {
    b->staging.release();
    b->next = free_batches;
    free_batches = b;
  }

  // Closes the open batch of a partition: the keyless sticky partition
  // moves on when its batch closes, as Kafka's sticky partitioner does.
  static void on_batch_closed(TopicState* t, int32_t partition) {
    if (t->sticky == partition && t->partitions > 0) t->sticky = (t->sticky + 1) % t->partitions;
  }

  void fail_now(std::unique_lock<std::mutex>& lk, const Status& st, std::string_view topic,
                int32_t partition, DeliveryCallback cb) {
    ++accepted;
    note_failure(st, 1);
    lk.unlock();
    if (cb.fn) cb.fn(cb.context, st, RecordMetadata{topic, partition, -1, 0});
    lk.lock();
    ++completed;
    cv.notify_all();
  }

  void note_failure(const Status& st, uint64_t records) {
    failed += records;
    if (first_error.ok()) first_error = st;
    if (first_error_in_flush.ok()) first_error_in_flush = st;
  }

  void send(std::string_view topic, std::span<const std::byte> key,
            std::span<const std::byte> value, std::span<const Header> headers, DeliveryCallback cb,
            int32_t partition);

  // I/O thread.
  void run();
  void fail_expired(Clock::time_point now, Batch** done);
  void build_metadata_request();
  Batch* collect_ready(Clock::time_point now);
  void build_produce_request(Batch* batches, Batch** done);
  void disconnect(Status why, Batch** done);
  void handle_response(const wire::Response& response, Batch** done);
  void complete(Batch* b, const Status& st, int64_t base_offset, Batch** done);
  void run_callbacks(Batch* done);
  Clock::time_point next_due(Clock::time_point now);
};

void Producer::Impl::send(std::string_view topic, std::span<const std::byte> key,
                          std::span<const std::byte> value, std::span<const Header> headers,
                          DeliveryCallback cb, int32_t partition) {
  std::size_t size = kEntryFixed + key.size() + value.size();
  for (const Header& h : headers) size += 6 + h.key.size() + h.value.size();
  std::unique_lock lk(mu);
  if (closed) {
    fail_now(lk, Status(ErrorCode::kShuttingDown, "the producer is closed"), topic, partition, cb);
    return;
  }
  if (size > kMaxRecordBytes || headers.size() > kMaxHeaders) {
    fail_now(lk,
             Status(ErrorCode::kBatchTooLarge, "record of " + std::to_string(size) + " bytes or " +
                                                   std::to_string(headers.size()) +
                                                   " headers is above the producer limit"),
             topic, partition, cb);
    return;
  }
  if (topic.size() > UINT16_MAX) {
    // A wire string: it could not be encoded into a Metadata or Produce request.
    fail_now(lk, Status(ErrorCode::kInvalidArgument, "topic name above 65535 bytes"), topic,
             partition, cb);
    return;
  }
  for (const Header& h : headers) {
    if (h.key.size() > UINT16_MAX) {
      fail_now(lk, Status(ErrorCode::kInvalidArgument, "header key above 65535 bytes"), topic,
               partition, cb);
      return;
    }
  }
  auto it = topics.find(topic);
  if (it == topics.end()) {
    auto t = std::make_unique<TopicState>();
    t->name = std::string(topic);
    it = topics.emplace(t->name, std::move(t)).first;
  }
  TopicState* t = it->second.get();
  if (t->partitions < 0) {
    const uint64_t generation = t->metadata_generation;
    t->metadata_wanted = true;
    wake();
    cv.wait_until(lk, Clock::now() + options.delivery_timeout, [&] {
      return t->partitions >= 0 || t->metadata_generation != generation || stop;
    });
    if (t->partitions < 0) {
      Status st = !t->metadata_error.ok()
                      ? t->metadata_error
                      : Status(ErrorCode::kTimeout,
                               "no metadata for topic '" + t->name + "' from " + options.bootstrap);
      if (!last_transport_error.ok() && t->metadata_error.ok()) {
        st = Status(ErrorCode::kTimeout,
                    std::string(st.message()) + ": " + std::string(last_transport_error.message()));
      }
      fail_now(lk, st, t->name, partition, cb);
      return;
    }
  }
  if (partition >= t->partitions) {
    fail_now(lk,
             Status(ErrorCode::kUnknownPartition,
                    "topic '" + t->name + "' has no partition " + std::to_string(partition)),
             t->name, partition, cb);
    return;
  }
  if (partition < 0) {
    partition = key.empty() ? t->sticky : KeyPartitioner::partition(key, t->partitions);
  }
  if (buffered > 0 && buffered + size > options.buffer_bytes &&
      std::this_thread::get_id() != io.get_id()) {
    wake();
    cv.wait_until(lk, Clock::now() + options.delivery_timeout,
                  [&] { return buffered == 0 || buffered + size <= options.buffer_bytes || stop; });
    if (stop || (buffered > 0 && buffered + size > options.buffer_bytes)) {
      fail_now(lk,
               Status(stop ? ErrorCode::kShuttingDown : ErrorCode::kResourceExhausted,
                      stop ? std::string("the producer is closed")
                           : "producer buffer (" + std::to_string(options.buffer_bytes) +
                                 " bytes) still full after the delivery timeout"),
               t->name, partition, cb);
      return;
    }
  }
  if (closed) {  // close() ran while this send waited above
    fail_now(lk, Status(ErrorCode::kShuttingDown, "the producer is closed"), t->name, partition,
             cb);
    return;
  }
  const Clock::time_point now = Clock::now();
  PartitionState& p = t->parts[static_cast<std::size_t>(partition)];
  Batch* b = p.tail;
  bool wake_io = false;
  if (b && !b->sealed && b->count > 0 && b->bytes + size > options.batch_bytes) {
    b->sealed = true;
    on_batch_closed(t, partition);
    if (key.empty()) partition = t->sticky;  // the keyless record follows the sticky move
    wake_io = true;
  }
  PartitionState& q = t->parts[static_cast<std::size_t>(partition)];
  b = q.tail;
  if (!b || b->sealed) {
    b = new_batch(t, partition, now);
    if (q.tail) {
      q.tail->next = b;
    } else {
      q.head = b;
    }
    q.tail = b;
    wake_io = true;  // a new linger deadline
  }
  std::span<std::byte> out = b->staging.reserve(size);
  if (out.size() < size) {
    if (wake_io) wake();
    fail_now(lk, Status(ErrorCode::kResourceExhausted, "no pooled buffer to stage a record"),
             t->name, partition, cb);
    return;
  }
  std::byte* w = out.data();
  store_be<uint32_t>(w, static_cast<uint32_t>(size));
  w += 4;
  store_be<uint64_t>(w, static_cast<uint64_t>(now_ms()));
  w += 8;
  std::memcpy(w, &cb.fn, sizeof(void*));
  w += sizeof(void*);
  std::memcpy(w, &cb.context, sizeof(void*));
  w += sizeof(void*);
  store_be<uint32_t>(w, key.empty() ? UINT32_MAX : static_cast<uint32_t>(key.size()));
  w += 4;
  if (!key.empty()) std::memcpy(w, key.data(), key.size());
  w += key.size();
  store_be<uint32_t>(w, static_cast<uint32_t>(value.size()));
  w += 4;
  if (!value.empty()) std::memcpy(w, value.data(), value.size());
  w += value.size();
  store_be<uint32_t>(w, static_cast<uint32_t>(headers.size()));
  w += 4;
  for (const Header& h : headers) {
    store_be<uint16_t>(w, static_cast<uint16_t>(h.key.size()));
    w += 2;
    if (!h.key.empty()) std::memcpy(w, h.key.data(), h.key.size());
    w += h.key.size();
    store_be<uint32_t>(w, static_cast<uint32_t>(h.value.size()));
    w += 4;
    if (!h.value.empty()) std::memcpy(w, h.value.data(), h.value.size());
    w += h.value.size();
  }
  b->staging.advance(size);
  ++b->count;
  b->bytes += size;
  buffered += size;
  ++accepted;
  if (b->bytes >= options.batch_bytes) {
    b->sealed = true;
    on_batch_closed(t, partition);
    wake_io = true;
  }
  lk.unlock();
  if (wake_io) wake();
}

// --- I/O thread ---------------------------------------------------------------

void Producer::Impl::run() {
  for (;;) {
    Batch* done = nullptr;  // batches completed this round, callbacks pending
    std::unique_lock lk(mu);
    Clock::time_point now = Clock::now();
    fail_expired(now, &done);
    bool idle = true;
    for (auto& [name, t] : topics) {
      for (const PartitionState& p : t->parts) {
        if (p.head || p.in_flight) idle = false;
      }
    }
    if (stop && idle && ring_size == 0) {
      lk.unlock();
      run_callbacks(done);
      break;
    }
    bool want_metadata = false;
    for (auto& [name, t] : topics) want_metadata |= t->metadata_wanted;
    // Connect when there is something to send; an idle producer whose
    // connection the broker closed stays disconnected until then.
    if (!channel.is_open() && (!idle || want_metadata)) {
      if (now >= reconnect_at) {
        lk.unlock();
        Status st =
            channel.connect(options.bootstrap, options.connect_timeout, options.request_timeout);
        lk.lock();
        if (!st.ok()) {
          last_transport_error = st;
          reconnect_at = Clock::now() + options.retry_backoff;
        } else {
          last_transport_error = Status::Ok();
        }
      }
    }
    Batch* to_send = nullptr;
    if (channel.is_open() && ring_size < ring.size()) {
      bool need_metadata = false;
      for (auto& [name, t] : topics) {
        if (t->metadata_wanted && !t->metadata_in_flight) need_metadata = true;
      }
      if (need_metadata) {
        build_metadata_request();
      } else {
        to_send = collect_ready(now);
      }
    }
    const Clock::time_point due = next_due(Clock::now());
    lk.unlock();

    if (to_send) build_produce_request(to_send, &done);
    if (request.bytes_written() > 0) {
      Status st = channel.send(request);
      request.release();
      if (!st.ok()) {
        lk.lock();
        disconnect(std::move(st), &done);
        lk.unlock();
      }
    }
    run_callbacks(done);
    done = nullptr;

    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now());
    wait = std::clamp(wait, std::chrono::milliseconds(0), std::chrono::milliseconds(100));
    bool readable;
    if (channel.is_open()) {
      // Readable with nothing in flight means the broker closed an idle
      // connection (EOF); reading it notices and closes our side.
      readable = channel.wait_readable(wait, wake_fd);
    } else {
      pollfd pfd{wake_fd, POLLIN, 0};
      ::poll(&pfd, 1, static_cast<int>(wait.count()));
      readable = false;
    }
    uint64_t drained;
    [[maybe_unused]] ssize_t r = ::read(wake_fd, &drained, sizeof(drained));
    if (!readable && ring_size > 0 &&
        Clock::now() >= ring[ring_head].sent + options.request_timeout) {
      lk.lock();
      disconnect(
          Status(ErrorCode::kTimeout, channel.address() + ": no response within " +
                                          std::to_string(options.request_timeout.count()) + " ms"),
          &done);
      lk.unlock();
      run_callbacks(done);
      continue;
    }
    if (readable) {
      Result<wire::Response> response = channel.read_response(options.max_response_bytes);
      lk.lock();
      if (!response.ok()) {
        disconnect(response.status(), &done);
      } else {
        handle_response(*response, &done);
      }
      lk.unlock();
      run_callbacks(done);
    }
  }
}

// Fails queued (not in-flight) batches past their delivery deadline, and
// everything queued once close()'s deadline has passed.
void Producer::Impl::fail_expired(Clock::time_point now, Batch** done) {
  const bool closing_over = stop && now >= stop_deadline;
  for (auto& [name, t] : topics) {
    for (PartitionState& p : t->parts) {
      while (p.head && (p.head->deadline <= now || closing_over)) {
        Batch* b = p.head;
        p.head = b->next;
        if (!p.head) p.tail = nullptr;
        b->next = nullptr;
        std::string why = closing_over ? "the producer closed before the record was acknowledged"
                                       : "record not acknowledged within the delivery timeout";
        if (!last_transport_error.ok())
          why += " (" + std::string(last_transport_error.message()) + ")";
        complete(b, Status(closing_over ? ErrorCode::kShuttingDown : ErrorCode::kTimeout, why), -1,
                 done);
      }
    }
  }
}

void Producer::Impl::build_metadata_request() {
  std::vector<std::string_view> names;
  for (auto& [name, t] : topics) {
    if (t->metadata_wanted && !t->metadata_in_flight) {
      names.push_back(t->name);
      t->metadata_in_flight = true;
    }
  }
  messages::MetadataRequest body;
  body.all_topics = false;
  body.topics = names;
  InFlight& f = ring[(ring_head + ring_size) % ring.size()];
  f = InFlight{next_correlation_id++, true, nullptr, Clock::now()};
  ++ring_size;
  Result<uint64_t> start = wire::begin_frame(request, frame::ApiKey::kMetadata,
                                             messages::kMetadataVersion, f.correlation_id);
  if (!start.ok() || !messages::encode_metadata_request(body, request).ok()) {
    request.release();  // the send of an empty request is skipped; the
    --ring_size;        // topics are asked again on the next round
    for (auto& [name, t] : topics) t->metadata_in_flight = false;
    return;
  }
  wire::end_frame(request, *start);
}

// Takes the ready head batch of every partition that has none in flight.
Batch* Producer::Impl::collect_ready(Clock::time_point now) {
  Batch* first = nullptr;
  Batch** link = &first;
  std::size_t bytes = 0;
  const bool hurry = flushing > 0 || stop;
  for (auto& [name, t] : topics) {
    for (std::size_t i = 0; i < t->parts.size(); ++i) {
      PartitionState& p = t->parts[i];
      Batch* b = p.head;
      if (!b || p.in_flight || b->count == 0 || now < b->retry_at) continue;
      if (!b->sealed && !hurry && now < b->created + options.linger) continue;
      if (bytes > 0 && bytes + b->bytes > kMaxRequestBytes) continue;
      bytes += b->bytes;
      p.head = b->next;
      if (!p.head) p.tail = nullptr;
      if (!b->sealed) {
        b->sealed = true;
        on_batch_closed(t.get(), static_cast<int32_t>(i));
      }
      b->next = nullptr;
      p.in_flight = true;
      *link = b;
      link = &b->next;
    }
  }
  if (first) {
    InFlight& f = ring[(ring_head + ring_size) % ring.size()];
    f = InFlight{next_correlation_id++, false, first, now};
    ++ring_size;
  }
  return first;
}

// Frames one Produce request for `batches` (grouped by topic, as
// collect_ready() returns them) into `request`. Called without the lock:
// sealed batches belong to the I/O thread.
void Producer::Impl::build_produce_request(Batch* batches, Batch** done) {
  const InFlight& f = ring[(ring_head + ring_size - 1) % ring.size()];
  batch::BuilderOptions bo;
  bo.compression = options.compression == ProducerCompression::kZstd ? batch::Compression::kZstd
                                                                     : batch::Compression::kNone;
  bo.zstd_level = options.zstd_level;
  Result<uint64_t> start = wire::begin_frame(request, frame::ApiKey::kProduce,
                                             messages::kProduceVersion, f.correlation_id);
  Status st = start.status();
  if (st.ok()) {
    // Each batch is built straight into the request, between the writer's
    // begin_partition() and end_partition().
    messages::ProduceRequestWriter w(request,
                                     static_cast<messages::Acks>(static_cast<int8_t>(options.acks)),
                                     static_cast<int32_t>(options.request_timeout.count()));
    TopicState* topic = nullptr;
    for (Batch* b = batches; b && st.ok(); b = b->next) {
      if (b->topic != topic) {
        topic = b->topic;
        w.begin_topic(topic->name);
      }
      w.begin_partition(b->partition);
      st = w.status();
      if (st.ok()) st = builder.start(request, bo);
      if (st.ok()) {
        for_each_entry(*b, [&](const Entry& e) {
          if (st.ok()) st = builder.append(e.record);
        });
      }
      Result<std::size_t> size = st.ok() ? builder.finish() : Result<std::size_t>(st);
      if (!size.ok()) {
        st = size.status();
        break;
      }
      w.end_partition();
    }
    if (st.ok()) st = w.finish();
  }
  if (!st.ok()) {
    // Cannot frame the request (no pooled memory): fail its batches rather
    // than send a partial one.
    request.release();
    std::lock_guard lk(mu);
    --ring_size;
    Batch* b = batches;
    while (b) {
      Batch* next = b->next;
      b->topic->parts[static_cast<std::size_t>(b->partition)].in_flight = false;
      complete(b,
               Status(st.code(), "cannot build the produce request: " + std::string(st.message())),
               -1, done);
      b = next;
    }
    return;
  }
  wire::end_frame(request, *start);
}

// The connection is gone: every in-flight request fails with `why`
// (retriable, so their batches go back to the front of their partitions).
void Producer::Impl::disconnect(Status why, Batch** done) {
  channel.close();
  last_transport_error = why;
  reconnect_at = Clock::now() + options.retry_backoff;
  while (ring_size > 0) {
    InFlight& f = ring[ring_head];
    ring_head = (ring_head + 1) % ring.size();
    --ring_size;
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
  if (ring_size == 0 || ring[ring_head].correlation_id != response.correlation_id) {
    disconnect(Status(ErrorCode::kCorruptMessage,
                      channel.address() + ": response to an unknown request (correlation id " +
                          std::to_string(response.correlation_id) + ")"),
               done);
    return;
  }
  InFlight f = ring[ring_head];
  ring_head = (ring_head + 1) % ring.size();
  --ring_size;
  Status request_error;
  if (response.error != ErrorCode::kOk) {
    request_error = frame::decode_error_body(response.error, response.body);
  }
  if (f.metadata) {
    std::vector<wire::TopicMetadata> answer;
    if (request_error.ok()) {
      Result<std::vector<wire::TopicMetadata>> decoded = wire::decode_metadata(response.body);
      if (decoded.ok()) {
        answer = std::move(decoded).value();
      } else {
        request_error = decoded.status();
      }
    }
    for (auto& [name, t] : topics) {
      if (!t->metadata_in_flight) continue;
      t->metadata_in_flight = false;
      t->metadata_wanted = false;
      ++t->metadata_generation;
      const wire::TopicMetadata* m = nullptr;
      for (const auto& a : answer) {
        if (a.topic.name == t->name) m = &a;
      }
      if (!request_error.ok()) {
        t->metadata_error = request_error;
      } else if (!m) {
        t->metadata_error =
            Status(ErrorCode::kUnknownTopic, "topic '" + t->name + "' does not exist");
      } else if (m->error != ErrorCode::kOk) {
        t->metadata_error = wire::topic_error(*m, t->name);
      } else if (m->topic.partitions.empty()) {
        t->metadata_error =
            Status(ErrorCode::kUnknownTopic, "topic '" + t->name + "' has no partitions");
      } else {
        t->metadata_error = Status::Ok();
        t->partitions = static_cast<int32_t>(m->topic.partitions.size());
        t->parts.resize(m->topic.partitions.size());
        t->sticky = static_cast<int32_t>(
            murmur2(std::as_bytes(std::span<const char>(t->name.data(), t->name.size()))) %
            static_cast<uint32_t>(t->partitions));
      }
    }
    cv.notify_all();
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
// otherwise it joins `done` for its callbacks.
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
    for_each_entry(*b, [&](const Entry& e) {
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

// When the I/O thread must next look at its queues.
Clock::time_point Producer::Impl::next_due(Clock::time_point now) {
  Clock::time_point due = now + std::chrono::milliseconds(100);
  if (!channel.is_open()) return std::min(due, reconnect_at);
  for (std::size_t i = 0; i < ring_size; ++i) {
    due = std::min(due, ring[(ring_head + i) % ring.size()].sent + options.request_timeout);
  }
  const bool can_send = ring_size < ring.size();
  const bool hurry = flushing > 0 || stop;
  for (auto& [name, t] : topics) {
    if (t->metadata_wanted && !t->metadata_in_flight && can_send) return now;
    for (const PartitionState& p : t->parts) {
      const Batch* b = p.head;
      if (!b) continue;
      due = std::min(due, b->deadline);
      if (p.in_flight || !can_send || b->count == 0) continue;
      if (b->sealed || hurry) {
        due = std::min(due, b->retry_at);
      } else {
        due = std::min(due, std::max(b->retry_at, b->created + options.linger));
      }
    }
  }
  return due;
}

// --- Producer -----------------------------------------------------------------

Result<std::unique_ptr<Producer>> Producer::create(ProducerOptions options) {
  std::string host, port;
  SPILLWAY_RETURN_IF_ERROR(wire::split_address(options.bootstrap, &host, &port));
  if (options.max_in_flight < 1) {
    return Status(ErrorCode::kInvalidArgument, "max_in_flight must be at least 1");
  }
  if (options.batch_bytes < 1 || options.buffer_bytes < 1 || options.retries < 0 ||
      options.linger.count() < 0 || options.delivery_timeout.count() <= 0 ||
      options.request_timeout.count() <= 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "batch_bytes, retries, linger and the timeouts must not be negative");
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (impl->wake_fd < 0) {
    return Status(ErrorCode::kResourceExhausted, std::string("eventfd: ") + std::strerror(errno));
  }
  // Batch objects are recycled; a first stock keeps the early sends (and
  // the steady state of most workloads) from allocating them.
  impl->all_batches.reserve(1'024);
  for (int i = 0; i < 64; ++i) {
    Batch* b = new Batch;
    impl->all_batches.push_back(b);
    b->next = impl->free_batches;
    impl->free_batches = b;
  }
  impl->io = std::thread([i = impl.get()] { i->run(); });
  return std::unique_ptr<Producer>(new Producer(std::move(impl)));
}

Producer::Producer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Producer::~Producer() {
  (void)close();
}

void Producer::send(std::string_view topic, std::span<const std::byte> key,
                    std::span<const std::byte> value, std::span<const Header> headers,
                    DeliveryCallback cb, int32_t partition) {
  impl_->send(topic, key, value, headers, cb, partition);
}

std::future<Result<RecordMetadata>> Producer::send(std::string_view topic, std::string_view key,
                                                   std::string_view value, int32_t partition) {
  auto* promise = new std::promise<Result<RecordMetadata>>();
  std::future<Result<RecordMetadata>> future = promise->get_future();
  DeliveryCallback cb;
  cb.context = promise;
  cb.fn = [](void* context, const Status& st, const RecordMetadata& m) {
    auto* p = static_cast<std::promise<Result<RecordMetadata>>*>(context);
    if (st.ok()) {
      p->set_value(m);
    } else {
      p->set_value(st);
    }
    delete p;
  };
  send(topic, std::as_bytes(std::span<const char>(key.data(), key.size())),
       std::as_bytes(std::span<const char>(value.data(), value.size())), {}, cb, partition);
  return future;
}

Status Producer::flush() {
  Impl& i = *impl_;
  std::unique_lock lk(i.mu);
  const uint64_t target = i.accepted;
  ++i.flushing;
  i.wake();
  i.cv.wait(lk, [&] { return i.completed >= target; });
  --i.flushing;
  Status st = std::move(i.first_error_in_flush);
  i.first_error_in_flush = Status::Ok();
  return st;
}

Status Producer::close() {
  Impl& i = *impl_;
  {
    std::unique_lock lk(i.mu);
    if (i.closed) return i.first_error;
    i.closed = true;
    i.stop = true;
    i.stop_deadline = Clock::now() + i.options.delivery_timeout;
    i.cv.notify_all();
  }
  i.wake();
  if (i.io.joinable()) i.io.join();
  std::lock_guard lk(i.mu);
  return i.first_error;
}

}  // namespace spillway
