// Kafka's ListOffsets.
#include "list_offsets_handler.h"

#include <array>
#include <string>
#include <vector>

#include "codec.h"
#include "core/task_pool.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/list_offsets.h"
#include "spillway/common/record_batch.h"

namespace spillway::broker::kafka_listener {

namespace {

using Response = kafka::ListOffsetsResponse;

struct ListOffsetsState final : ExchangeState {
  struct Entry {
    uint32_t topic;
    int32_t partition;
    int64_t target;                  // the timestamp asked for
    std::shared_ptr<Partition> log;  // held while a scan runs
    int16_t error;
    int64_t timestamp;
    int64_t offset;
    int64_t next;       // where the scan reads next
    int32_t epoch = 0;  // the partition's leader epoch (0 on a standalone broker)
  };

  Exchange* exchange = nullptr;
  std::string names;
  std::vector<std::pair<uint32_t, uint32_t>> topic_names;  // offset and size in names
  std::vector<Entry> entries;
  size_t pending = 0;
  bool dispatching = false;
  // The response's views, reused request after request.
  std::vector<Response::Partition> partitions;
  std::vector<Response::Topic> topics;

  std::string_view name(uint32_t t) const {
    return std::string_view(names).substr(topic_names[t].first, topic_names[t].second);
  }
};

void respond_list_offsets(ListOffsetsState& st) {
  st.partitions.clear();
  st.topics.clear();
  for (ListOffsetsState::Entry& e : st.entries) {
    e.log.reset();
    Response::Partition p;
    p.partition_index = e.partition;
    p.error_code = e.error;
    p.timestamp = e.timestamp;
    p.offset = e.offset;
    p.leader_epoch = e.error == kafka::errors::kNone ? e.epoch : -1;
    st.partitions.push_back(p);
  }
  size_t e = 0;
  for (uint32_t t = 0; t < st.topic_names.size(); ++t) {
    size_t end = e;
    while (end < st.entries.size() && st.entries[end].topic == t) ++end;
    Response::Topic topic;
    topic.name = st.name(t);
    topic.partitions = std::span<const Response::Partition>(st.partitions).subspan(e, end - e);
    st.topics.push_back(topic);
    e = end;
  }
  Response response;
  response.topics = st.topics;
  respond(*st.exchange, response);
}

void entry_done(ListOffsetsState& st) {
  if (--st.pending == 0 && !st.dispatching) respond_list_offsets(st);
}

// The first record at or after `target` in the batch at `position` of
// `file` whose header is `header` (its max timestamp is >= target): its
// offset and timestamp. Decodes the batch (a compressed one decompressed
// into a pooled buffer); when it cannot (no buffer, a read error), answers the batch's base offset,
// which is at or before the exact one, so a consumer seeking there misses nothing.
void find_in_batch(storage::File& file, uint64_t position, const batch::BatchHeader& header,
                   int64_t target, ListOffsetsState::Entry& e) {
  e.offset = header.base_offset;
  e.timestamp = header.max_timestamp;
  const bool log_append_time = (header.attributes & batch::kTimestampTypeLogAppend) != 0;
  if (log_append_time) return;  // every record has the batch's time: the first one
  const batch::Compression codec = header.compression();
  BufferPool& pool = BufferPool::global();
  std::span<std::byte> whole = pool.rent(header.total_size());
  if (whole.empty()) return;
  std::span<std::byte> inflated;
  struct GiveBack {
    BufferPool& pool;
    std::byte* a;
    std::byte* b = nullptr;
    ~GiveBack() {
      pool.give_back(a);
      if (b) pool.give_back(b);
    }
  } give_back{pool, whole.data()};
  whole = whole.first(header.total_size());
  Result<size_t> n = file.read_at(whole, position);
  if (!n.ok() || *n != whole.size()) return;
  std::span<const std::byte> records = batch::records_block(whole);
  if (codec != batch::Compression::kNone) {
    inflated = pool.rent(BufferPool::kMaxBufferSize);
    if (inflated.empty()) return;
    give_back.b = inflated.data();
    Result<std::span<const std::byte>> out = batch::decompress_records(whole, inflated);
    if (!out.ok()) return;
    records = *out;
  }
  batch::RecordReader reader(records, header.record_count);
  batch::RecordView record;
  while (reader.next(&record)) {
    const int64_t timestamp = header.base_timestamp + record.timestamp_delta;
    if (timestamp >= target) {
      e.offset = header.base_offset + record.offset_delta;
      e.timestamp = timestamp;
      return;
    }
  }
}

void scan_step(ListOffsetsState& st, uint32_t index);

// A slice of the partition for the scan of entry `index`: walks its batch
// headers (pread, on this core) for the first max timestamp >= target.
void on_scan_read(void* ctx, uint32_t index, PartitionReply& reply) {
  auto& st = *static_cast<ListOffsetsState*>(ctx);
  ListOffsetsState::Entry& e = st.entries[index];
  if (!reply.status.ok() && reply.status.code() == ErrorCode::kOffsetOutOfRange &&
      reply.log_start_offset.value() > e.next) {
    // Retention moved the log start past the scan: go on from there.
    e.next = reply.log_start_offset.value();
    scan_step(st, index);
    return;
  }
  if (!reply.status.ok()) {
    e.error = kafka_read_error(reply.status.code());
    entry_done(st);
    return;
  }
  const storage::FileSlice& slice = reply.slice;
  if (slice.empty()) {  // the high watermark: no record that late
    e.offset = -1;
    e.timestamp = -1;
    entry_done(st);
    return;
  }
  uint64_t position = slice.position;
  const uint64_t end = slice.position + slice.length;
  std::array<std::byte, batch::kHeaderSize> bytes;
  while (position + batch::kHeaderSize <= end) {
    Result<size_t> n = slice.file->read_at(bytes, position);
    Result<batch::BatchHeader> header =
        n.ok() && *n == bytes.size()
            ? batch::parse_header(bytes)
            : Result<batch::BatchHeader>(Status(ErrorCode::kIoError, "short read of a header"));
    if (!header.ok()) {
      e.error = kafka::errors::kKafkaStorageError;
      entry_done(st);
      return;
    }
    if (header->max_timestamp >= e.target) {
      find_in_batch(*slice.file, position, *header, e.target, e);
      entry_done(st);
      return;
    }
    position += header->total_size();
  }
  e.next = slice.next_offset.value();
  scan_step(st, index);
}

void scan_step(ListOffsetsState& st, uint32_t index) {
  ListOffsetsState::Entry& e = st.entries[index];
  Reply reply;
  reply.executor = tracked_executor(st.exchange->context());
  reply.keep_alive = st.exchange->keep_alive();
  reply.fn = &on_scan_read;
  reply.ctx = &st;
  reply.index = index;
  std::shared_ptr<Partition> owner = e.log;
  post_task(e.log->owner(), [owner = std::move(owner), offset = Offset(e.next),
                             reply = std::move(reply)]() mutable {
    owner->read(offset, ListOffsetsHandler::kScanSliceBytes, std::move(reply));
  });
}

}  // namespace

void ListOffsetsHandler::handle(Exchange& exchange) {
  Result<kafka::ListOffsetsRequest> request = decode_request<kafka::ListOffsetsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  ListOffsetsState& st = exchange.state<ListOffsetsState>(Exchange::kKafkaListOffsetsState);
  st.exchange = &exchange;
  st.names.clear();
  st.topic_names.clear();
  st.entries.clear();
  st.pending = 0;
  st.dispatching = true;
  for (const kafka::ListOffsetsRequest::Topic& t : request->topics) {
    const auto topic_index = static_cast<uint32_t>(st.topic_names.size());
    st.topic_names.emplace_back(static_cast<uint32_t>(st.names.size()),
                                static_cast<uint32_t>(t.name.size()));
    st.names.append(t.name);
    const Topic* topic = context_.broker.topics.find(t.name);
    const bool may_describe =
        may_topic(context_.broker, exchange, security::AclOperation::kDescribe, t.name);
    for (const kafka::ListOffsetsRequest::Partition& p : t.partitions) {
      ListOffsetsState::Entry e{
          topic_index, p.partition_index, p.timestamp, nullptr, kafka::errors::kNone, -1, -1, 0};
      if (!may_describe) {
        e.error = kafka::errors::kTopicAuthorizationFailed;
        st.entries.push_back(std::move(e));
        continue;
      }
      const Status usable = topic == nullptr ? Status(ErrorCode::kUnknownTopic, "")
                                             : topic->check_partition(p.partition_index);
      if (!usable.ok()) {
        e.error = kafka_error(usable);
        st.entries.push_back(std::move(e));
        continue;
      }
      std::shared_ptr<Partition> log = topic->partitions[static_cast<size_t>(p.partition_index)];
      const replication::Role role = log->role();
      if (role == replication::Role::kLeader) e.epoch = log->leader_epoch().value();
      if (const Status epoch = log->check_client_leader_epoch(p.current_leader_epoch);
          !epoch.ok()) {
        e.error = kafka_error(epoch);
      } else if (role == replication::Role::kFollower || role == replication::Role::kNone) {
        // In a cluster only the leader answers (its high watermark is the
        // replicated one).
        e.error = kafka_error(ErrorCode::kNotLeaderOrFollower);
      } else if (log->corrupt()) {
        e.error = kafka_read_error(ErrorCode::kCorruptMessage);
      } else if (p.timestamp == kafka::kListOffsetsEarliest) {
        e.offset = log->log_start_offset().value();
      } else if (p.timestamp == kafka::kListOffsetsLatest) {
        e.offset = log->high_watermark().value();
      } else if (p.timestamp < 0) {
        e.error = kafka_error(ErrorCode::kInvalidArgument);  // -3 is v7's, not served
      } else {
        e.log = std::move(log);
        e.next = e.log->log_start_offset().value();
        ++st.pending;
      }
      st.entries.push_back(std::move(e));
    }
  }
  for (uint32_t i = 0; i < st.entries.size(); ++i) {
    if (st.entries[i].log != nullptr) scan_step(st, i);
  }
  st.dispatching = false;
  if (st.pending == 0) respond_list_offsets(st);
}

}  // namespace spillway::broker::kafka_listener
