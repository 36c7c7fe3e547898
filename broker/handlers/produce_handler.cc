// Produce: validation, routing by key, posting appends to owner cores, and
// the response in request order.
#include "produce_handler.h"

#include <asio/post.hpp>
#include <string>
#include <vector>

#include "core/task_pool.h"
#include "disk_full_log.h"
#include "metrics/metrics.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/key_partitioner.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/record_batch.h"

namespace spillway::broker {

namespace {

using messages::Acks;

struct ProduceState final : ExchangeState {
  struct TopicRef {
    uint32_t name_offset;
    uint32_t name_size;
  };
  struct Entry {
    uint32_t topic;
    int32_t partition;
    ErrorCode code;
    std::string message;  // only set on error
    int64_t base_offset;
    int32_t record_count;
    int64_t log_start_offset;
  };

  Exchange* exchange = nullptr;
  Metrics* metrics = nullptr;
  std::string names;  // topic names, copied out of the request body
  std::vector<TopicRef> topics;
  std::vector<Entry> entries;
  // The response's views over `entries`, reused request after request.
  std::vector<messages::ProducePartitionResult> results;
  std::vector<messages::ProduceTopicResult> topic_results;
  size_t pending = 0;
  bool dispatching = false;
  // Routing scratch, reused request after request.
  std::vector<int32_t> record_partition;
  std::vector<int32_t> first_seen;  // partitions in order of first appearance
  std::vector<uint8_t> seen;
  std::vector<batch::RecordHeaderInput> headers;
  batch::BatchBuilder builder;

  std::string_view name(uint32_t topic) const {
    return std::string_view(names).substr(topics[topic].name_offset, topics[topic].name_size);
  }
  void add_error(uint32_t topic, int32_t partition, const Status& st) {
    entries.push_back(Entry{topic, partition, st.code(), std::string(st.message()), -1, 0, -1});
  }
};

void finish_produce(ProduceState& st) {
  // The response as views over the entries (messages/produce.h).
  st.results.clear();
  st.topic_results.clear();
  for (const ProduceState::Entry& entry : st.entries) {
    st.results.push_back({.partition = entry.partition,
                          .error_code = entry.code,
                          .error_message = entry.message,
                          .base_offset = entry.base_offset,
                          .record_count = entry.record_count,
                          .log_start_offset = entry.log_start_offset});
  }
  size_t e = 0;
  for (uint32_t t = 0; t < st.topics.size(); ++t) {
    size_t end = e;
    while (end < st.entries.size() && st.entries[end].topic == t) ++end;
    st.topic_results.push_back(
        {.name = st.name(t),
         .results =
             std::span<const messages::ProducePartitionResult>(st.results).subspan(e, end - e)});
    e = end;
  }
  Exchange& exchange = *st.exchange;
  exchange.finish(messages::encode_produce_response({st.topic_results}, exchange.out()));
}

// A partition's reply, on the connection's thread.
void on_append(void* ctx, uint32_t index, PartitionReply& reply) {
  auto& st = *static_cast<ProduceState*>(ctx);
  ProduceState::Entry& entry = st.entries[index];
  if (reply.status.ok()) {
    entry.base_offset = reply.base_offset.value();
    entry.log_start_offset = reply.log_start_offset.value();
    DiskFullLog::global().succeeded(st.name(entry.topic), entry.partition);
  } else {
    entry.code = reply.status.code();
    entry.message = std::string(reply.status.message());
    entry.base_offset = -1;
    DiskFullLog::global().failed(st.name(entry.topic), entry.partition, reply.status);
  }
  if (--st.pending == 0 && !st.dispatching) finish_produce(st);
}

// acks none: answered already (the exchange may have been reused), so only
// the log learns how the append went. `ctx` is the Partition, held alive by
// the reply's keep_alive.
void unanswered_reply(void* ctx, uint32_t, PartitionReply& reply) {
  const auto& partition = *static_cast<const Partition*>(ctx);
  if (reply.status.ok()) {
    DiskFullLog::global().succeeded(partition.topic(), partition.index().value());
  } else {
    DiskFullLog::global().failed(partition.topic(), partition.index().value(), reply.status);
  }
}

// Copies `batch` into a pooled buffer and posts its append to the owner.
Status post_append(ProduceState& st, Partition& partition, uint32_t topic,
                   std::span<const std::byte> batch, int32_t record_count, Acks acks,
                   std::byte* rented = nullptr) {
  if (rented == nullptr) {
    std::span<std::byte> buffer = BufferPool::global().rent(batch.size());
    if (buffer.empty()) {
      return Status(ErrorCode::kResourceExhausted,
                    "no pooled buffer for a batch of " + std::to_string(batch.size()) + " bytes");
    }
    std::memcpy(buffer.data(), batch.data(), batch.size());
    rented = buffer.data();
  }
  const auto index = static_cast<uint32_t>(st.entries.size());
  st.entries.push_back(ProduceState::Entry{
      topic, partition.index().value(), ErrorCode::kOk, {}, -1, record_count, -1});
  std::shared_ptr<Partition> owner = partition.shared_from_this();
  Reply reply;
  reply.executor = tracked_executor(st.exchange->context());
  reply.index = index;
  if (acks == Acks::kNone) {
    reply.keep_alive = owner;
    reply.fn = &unanswered_reply;
    reply.ctx = &partition;
  } else {
    reply.keep_alive = st.exchange->keep_alive();
    reply.fn = &on_append;
    reply.ctx = &st;
    ++st.pending;
  }
  const AckAfter ack = acks == Acks::kDurable ? AckAfter::kSync : AckAfter::kWrite;
  post_task(partition.owner(), [owner = std::move(owner), rented, size = batch.size(), ack,
                                reply = std::move(reply)]() mutable {
    owner->append(std::span<std::byte>(rented, size), rented, ack, std::move(reply));
  });
  return Status::Ok();
}

// Splits a validated batch by key into one batch per partition (in order of
// first appearance) and posts each. Records keep their order within a
// partition; keyless records all go to one partition chosen round-robin.
Status route_by_key(ProduceState& st, Topic& topic, uint32_t topic_index,
                    std::span<const std::byte> batch, const batch::BatchHeader& header, Acks acks) {
  const auto partitions = static_cast<int32_t>(topic.partitions.size());
  std::span<const std::byte> records = batch::records_block(batch);
  std::byte* decompressed = nullptr;
  if (header.compression() == batch::Compression::kZstd) {
    std::span<std::byte> buffer = BufferPool::global().rent(BufferPool::kMaxBufferSize);
    if (buffer.empty()) return Status(ErrorCode::kResourceExhausted, "no pooled buffer");
    Result<std::span<const std::byte>> out = batch::decompress_records(batch, buffer);
    if (!out.ok()) {
      BufferPool::global().give_back(buffer.data());
      return out.status();
    }
    records = *out;
    decompressed = buffer.data();
  }
  struct GiveBack {
    std::byte* p;
    ~GiveBack() {
      if (p) BufferPool::global().give_back(p);
    }
  } give_back{decompressed};

  // Pass 1: each record's partition.
  st.record_partition.clear();
  st.first_seen.clear();
  st.seen.assign(static_cast<size_t>(partitions), 0);
  int32_t sticky = -1;
  batch::RecordReader reader(records, header.record_count);
  batch::RecordView record;
  while (reader.next(&record)) {
    int32_t p;
    if (record.key_is_null) {
      if (sticky < 0) {
        sticky = static_cast<int32_t>(topic.sticky.fetch_add(1, std::memory_order_relaxed) %
                                      static_cast<uint32_t>(partitions));
      }
      p = sticky;
    } else {
      p = KeyPartitioner::partition(record.key, partitions);
    }
    st.record_partition.push_back(p);
    if (!st.seen[static_cast<size_t>(p)]) {
      st.seen[static_cast<size_t>(p)] = 1;
      st.first_seen.push_back(p);
    }
  }
  if (!reader.status().ok()) return reader.status();

  // Pass 2, per partition: re-encode its records (same base timestamp, so
  // every record's encoding is no longer than before) into a pooled buffer.
  const size_t bound = records.size() + batch::kHeaderSize;
  if (bound > BufferPool::kMaxBufferSize) {
    return Status(ErrorCode::kBatchTooLarge, "a batch routed by key may hold at most " +
                                                 std::to_string(BufferPool::kMaxBufferSize) +
                                                 " bytes of records");
  }
  for (int32_t p : st.first_seen) {
    std::span<std::byte> buffer = BufferPool::global().rent(bound);
    if (buffer.empty()) return Status(ErrorCode::kResourceExhausted, "no pooled buffer");
    WriteBuffer out(buffer.first(bound));
    batch::BuilderOptions options;
    options.base_timestamp = header.base_timestamp;
    options.extra_attributes = static_cast<int16_t>(header.attributes & ~batch::kCompressionMask);
    Status built = st.builder.start(out, options);
    batch::RecordReader again(records, header.record_count);
    size_t i = 0;
    while (built.ok() && again.next(&record)) {
      if (st.record_partition[i++] != p) continue;
      st.headers.clear();
      batch::HeaderReader hr(record);
      batch::RecordHeaderView h;
      while (hr.next(&h)) st.headers.push_back({h.key, h.value, h.value_is_null});
      batch::RecordInput input;
      input.timestamp = header.base_timestamp + record.timestamp_delta;
      input.key = record.key;
      input.key_is_null = record.key_is_null;
      input.value = record.value;
      input.value_is_null = record.value_is_null;
      input.headers = st.headers;
      built = st.builder.append(input);
    }
    const int32_t count = st.builder.record_count();
    Result<size_t> size = built.ok() ? st.builder.finish() : Result<size_t>(built);
    if (!size.ok() || out.spilled()) {
      BufferPool::global().give_back(buffer.data());
      return size.ok() ? Status(ErrorCode::kUnknown, "routed batch outgrew its bound")
                       : size.status();
    }
    SPILLWAY_RETURN_IF_ERROR(post_append(st, *topic.partitions[static_cast<size_t>(p)], topic_index,
                                         buffer.first(*size), count, acks, buffer.data()));
  }
  return Status::Ok();
}

}  // namespace

void ProduceHandler::handle(Exchange& exchange) {
  Result<messages::ProduceRequest> request = messages::decode_produce_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  ProduceState& st = exchange.state<ProduceState>(Exchange::kProduceState);
  st.exchange = &exchange;
  st.metrics = context_.metrics;
  st.names.clear();
  st.topics.clear();
  st.entries.clear();
  st.pending = 0;
  st.dispatching = true;
  const Acks acks = request->acks;
  const auto max_batch = static_cast<size_t>(context_.config.max_batch_bytes);

  uint32_t topic_index = 0;
  for (const messages::ProduceTopicData& t : request->topics) {
    st.topics.push_back(
        {static_cast<uint32_t>(st.names.size()), static_cast<uint32_t>(t.name.size())});
    st.names.append(t.name);
    Topic* topic = context_.topics.find(t.name);
    if (topic == nullptr && context_.config.auto_create_topics &&
        validate_topic_name(t.name).ok()) {
      CreateTopicSpec spec;
      spec.name = std::string(t.name);
      spec.partitions = static_cast<int32_t>(context_.config.default_partitions);
      Result<std::shared_ptr<Topic>> created =
          context_.topics.create(spec, exchange.executor(), [](Status) {});
      if (created.ok()) topic = created->get();
    }
    for (const messages::ProducePartitionData& part : t.partitions) {
      if (topic == nullptr) {
        st.add_error(topic_index, part.partition,
                     Status(ErrorCode::kUnknownTopic, "unknown topic " + std::string(t.name)));
        continue;
      }
      Status usable = part.partition == messages::kRouteByKey
                          ? topic->offline
                          : topic->check_partition(part.partition);
      if (!usable.ok()) {
        st.add_error(topic_index, part.partition, usable);
        continue;
      }
      Status valid = batch::validate_produced(part.record_batch, max_batch);
      if (!valid.ok()) {
        if (st.metrics) st.metrics->count_rejected_batch();
        st.add_error(topic_index, part.partition, valid);
        continue;
      }
      Result<batch::BatchHeader> header = batch::parse_header(part.record_batch);
      topic->counters.bytes_in.fetch_add(part.record_batch.size(), std::memory_order_relaxed);
      topic->counters.messages_in.fetch_add(static_cast<uint64_t>(header->record_count),
                                            std::memory_order_relaxed);
      Status posted = part.partition == messages::kRouteByKey
                          ? route_by_key(st, *topic, topic_index, part.record_batch, *header, acks)
                          : post_append(st, *topic->partitions[static_cast<size_t>(part.partition)],
                                        topic_index, part.record_batch, header->record_count, acks);
      if (!posted.ok()) st.add_error(topic_index, part.partition, posted);
    }
    ++topic_index;
  }
  st.dispatching = false;
  if (st.pending == 0) finish_produce(st);
}

}  // namespace spillway::broker
