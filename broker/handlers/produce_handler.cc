// Produce: the native request and response around the shared core
// (produce_core.h), and routing by key.
#include "produce_handler.h"

#include <string>
#include <vector>

#include "handlers/access.h"
#include "produce_core.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/key_partitioner.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/record_batch.h"

namespace spillway::broker {

namespace {

using messages::Acks;

// The shared core (produce_core.h) and what only the native protocol needs:
// routing by key, and its response.
struct ProduceState final : ProduceCore {
  // The response's views over the entries, reused request after request.
  std::vector<messages::ProducePartitionResult> results;
  std::vector<messages::ProduceTopicResult> topic_results;
  // Routing scratch, reused request after request.
  std::vector<int32_t> record_partition;
  std::vector<int32_t> first_seen;  // partitions in order of first appearance
  std::vector<uint8_t> seen;
  std::vector<batch::RecordHeaderInput> headers;
  batch::BatchBuilder builder;
};

// Every partition has replied: the response as views over the entries
// (messages/produce.h).
void finish_produce(ProduceCore& core) {
  auto& st = static_cast<ProduceState&>(core);
  const std::vector<ProduceCore::Entry>& entries = st.entries();
  st.results.clear();
  st.topic_results.clear();
  for (const ProduceCore::Entry& entry : entries) {
    st.results.push_back({.partition = entry.partition,
                          .error_code = entry.code,
                          .error_message = entry.message,
                          .base_offset = entry.base_offset,
                          .record_count = entry.record_count,
                          .log_start_offset = entry.log_start_offset});
  }
  size_t e = 0;
  for (uint32_t t = 0; t < st.topic_count(); ++t) {
    size_t end = e;
    while (end < entries.size() && entries[end].topic == t) ++end;
    st.topic_results.push_back(
        {.name = st.topic_name(t),
         .results =
             std::span<const messages::ProducePartitionResult>(st.results).subspan(e, end - e)});
    e = end;
  }
  Exchange& exchange = st.exchange();
  exchange.finish(messages::encode_produce_response({st.topic_results}, exchange.out()));
}

// Splits a validated batch by key into one batch per partition (in order of
// first appearance) and posts each. Records keep their order within a
// partition; keyless records all go to one partition chosen round-robin.
Status route_by_key(ProduceState& st, Topic& topic, uint32_t topic_index,
                    std::span<const std::byte> batch, const batch::BatchHeader& header, Acks acks) {
  const auto partitions = static_cast<int32_t>(topic.partitions.size());
  std::span<const std::byte> records = batch::records_block(batch);
  std::byte* decompressed = nullptr;
  if (header.compression() != batch::Compression::kNone) {  // any codec validate() accepted
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
    Status posted = st.post_append(*topic.partitions[static_cast<size_t>(p)], topic_index,
                                   buffer.first(*size), count, acks, buffer.data());
    if (!posted.ok()) {
      BufferPool::global().give_back(buffer.data());
      return posted;
    }
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
  st.begin(exchange, context_, &finish_produce);
  const Acks acks = request->acks;
  st.set_timeout_ms(request->timeout_ms);
  // A request of one batch gives its body's buffer to the owner core
  // (ProduceCore::BatchBuffer).
  bool one_batch = request->topics.size() == 1;
  for (const messages::ProduceTopicData& t : request->topics)
    one_batch = one_batch && t.partitions.size() == 1;
  const auto buffer =
      one_batch ? ProduceCore::BatchBuffer::kAdoptBody : ProduceCore::BatchBuffer::kCopy;
  for (const messages::ProduceTopicData& t : request->topics) {
    const uint32_t topic_index = st.add_topic(t.name);
    Topic* topic = context_.topics.find(t.name);
    if (!may_topic(context_, exchange, security::AclOperation::kWrite, t.name)) {
      for (const messages::ProducePartitionData& part : t.partitions) {
        st.add_error(
            topic_index, part.partition,
            Status(ErrorCode::kTopicAuthorizationFailed, "not allowed to write the topic"));
      }
      continue;
    }
    if (topic == nullptr && context_.config.auto_create_topics &&
        validate_topic_name(t.name).ok() && may_create_topic(context_, exchange, t.name)) {
      CreateTopicSpec spec;
      spec.name = std::string(t.name);
      spec.partitions = static_cast<int32_t>(context_.config.default_partitions);
      Result<std::shared_ptr<Topic>> created =
          context_.topics.create(spec, exchange.executor(), [](Status) {});
      if (created.ok()) topic = created->get();
    }
    for (const messages::ProducePartitionData& part : t.partitions) {
      if (part.partition != messages::kRouteByKey) {
        st.produce(topic_index, topic, part.partition, part.record_batch, acks, buffer);
        continue;
      }
      Result<batch::BatchHeader> header =
          st.admit(topic_index, topic, part.partition, part.record_batch, /*route_by_key=*/true);
      if (!header.ok()) continue;
      Status routed = route_by_key(st, *topic, topic_index, part.record_batch, *header, acks);
      if (!routed.ok()) st.add_error(topic_index, part.partition, routed);
    }
  }
  st.end();
}

}  // namespace spillway::broker
