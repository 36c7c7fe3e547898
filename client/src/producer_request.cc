// Produce request assembly on the producer's I/O thread: collect_ready()
// takes the ready head batch of each partition (at most one per partition in
// flight, so per-partition order holds) into one request, and
// build_produce_request() builds their staged entries into RecordBatch v2
// batches straight inside the framed Produce request.
#include <string>

#include "producer_impl.h"
#include "producer_staging.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/messages/produce_writer.h"

namespace spillway {

namespace {

// Largest Produce request the producer frames (one batch may still pass it).
constexpr std::size_t kMaxRequestBytes = 8u << 20;

}  // namespace

// Takes the ready head batch of every partition that has none in flight.
Producer::Impl::Batch* Producer::Impl::collect_ready(Clock::time_point now) {
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
        producer_internal::on_batch_closed(t.get(), static_cast<int32_t>(i));
      }
      b->next = nullptr;
      p.in_flight = true;
      *link = b;
      link = &b->next;
    }
  }
  if (first)
    ring.push(producer_internal::InFlight{channel.next_correlation_id(), false, first, now});
  return first;
}

// Frames one Produce request for `batches` (grouped by topic, as
// collect_ready() returns them) into `request`. Called without the lock:
// sealed batches belong to the I/O thread.
void Producer::Impl::build_produce_request(Batch* batches, Batch** done) {
  const producer_internal::InFlight& f = ring.newest();
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
        producer_internal::for_each_entry(b->staging, [&](const producer_internal::Entry& e) {
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
    ring.drop_newest();
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

}  // namespace spillway
