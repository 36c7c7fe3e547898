// Consumer: Fetch long polls and the control calls (Metadata, FetchOffsets,
// CommitOffsets) on one Channel. Fetch responses are read into the
// channel's reused buffer, which the returned records point into; control
// calls read their answers into memory of their own, so committing never
// invalidates records already handed out.
#include "spillway/consumer.h"

#include <algorithm>
#include <cstdio>

#include "channel.h"
#include "metadata.h"
#include "spillway/common/crc32c.h"
#include "spillway/common/messages/fetch.h"
#include "spillway/common/messages/offsets.h"

namespace spillway {

namespace {

using Clock = std::chrono::steady_clock;

// Position states besides a real offset.
constexpr int64_t kResolveCommitted = -1;  // committed offset, else the reset policy
constexpr int64_t kResolveEarliest = -2;
constexpr int64_t kResolveLatest = -3;

struct Assigned {
  std::string topic;
  int32_t partition = 0;
  int64_t position = kResolveCommitted;
};

// Fetched records of one partition not yet handed out.
struct Pending {
  std::size_t index;                   // into assigned
  std::span<const std::byte> records;  // whole batches still to read
};

// A growable buffer for decompressed records blocks, reused across polls.
struct ArenaBuffer {
  std::unique_ptr<std::byte[]> data;
  std::size_t capacity = 0;
};

}  // namespace

struct Consumer::Impl {
  explicit Impl(ConsumerOptions o) : options(std::move(o)) {}

  const ConsumerOptions options;
  std::vector<Assigned> assigned;  // sorted by topic, then partition
  wire::Channel channel;
  std::vector<Pending> pending;
  std::vector<ConsumerRecord> records;
  std::vector<ArenaBuffer> arena;
  std::size_t arena_used = 0;
  std::byte request_scratch[4096];
  // The Fetch request's topics and partitions, rebuilt by send_fetch() in
  // storage kept across polls (so a steady poll loop allocates nothing).
  std::vector<messages::FetchTopicRequest> fetch_topics;
  std::vector<messages::FetchPartitionRequest> fetch_partitions;

  Status ensure_connected() {
    if (channel.is_open()) return Status::Ok();
    return channel.connect(options.bootstrap, {.connect_timeout = options.connect_timeout,
                                               .request_timeout = options.request_timeout,
                                               .max_response_bytes = options.max_response_bytes,
                                               .client_id = "spillway-consumer"});
  }

  // Runs fn(Channel&) -> Result<T>; when that fails with kNotConnected (e.g.
  // the broker closed an idle connection or restarted), once more on a new
  // connection.
  template <typename Fn>
  auto with_reconnect(Fn&& fn) -> decltype(fn(std::declval<wire::Channel&>())) {
    if (Status st = ensure_connected(); !st.ok()) return st;
    auto r = fn(channel);
    if (r.ok() || r.status().code() != ErrorCode::kNotConnected) return r;
    channel.close();
    if (Status st = ensure_connected(); !st.ok()) return st;
    return fn(channel);
  }
  // A control call of `key` with the body `encode` writes.
  template <typename Encode>
  Result<std::vector<std::byte>> control_call(frame::ApiKey key, int16_t version, Encode&& encode) {
    return with_reconnect([&](wire::Channel& c) { return c.call(key, version, encode); });
  }
  // One FetchOffsets round trip for `partitions` of `topic`: the response
  // body.
  Result<std::vector<std::byte>> fetch_offsets(std::string_view topic,
                                               std::span<const int32_t> partitions) {
    const messages::FetchOffsetsTopic topics[] = {{topic, partitions}};
    const messages::FetchOffsetsRequest request{options.group_id, topics};
    return control_call(
        frame::ApiKey::kFetchOffsets, messages::kFetchOffsetsVersion,
        [&](WriteBuffer& out) { return messages::encode_fetch_offsets_request(request, out); });
  }
  Result<TopicDescription> describe(std::string_view topic) {
    return with_reconnect([&](wire::Channel& c) { return wire::describe_topic(c, topic); });
  }

  Assigned* find(std::string_view topic, int32_t partition) {
    for (Assigned& a : assigned) {
      if (a.topic == topic && a.partition == partition) return &a;
    }
    return nullptr;
  }

  Status resolve_positions();
  // Sends one Fetch for every assigned partition, long-polling up to
  // `wait`; returns its correlation id.
  Result<int32_t> send_fetch(std::chrono::milliseconds wait);
  // Reads the answer to the Fetch `correlation_id` (within the request
  // timeout plus the long poll's `wait`).
  Result<wire::Response> read_fetch(int32_t correlation_id, std::chrono::milliseconds wait);
  Status take_response_into_pending(const wire::Response& response);
  Status drain_pending();
  // Checks one complete batch of `a` (its CRC first) and appends its records
  // at or after the position to `records`, advancing the position past it.
  // On error nothing of it is appended and the position stays.
  Status take_batch(Assigned& a, const batch::BatchHeader& h, std::span<const std::byte> bytes);
  Result<std::span<const std::byte>> decompress(std::span<const std::byte> batch);
  static std::string where(const Assigned& a, int64_t offset);
};

Result<std::unique_ptr<Consumer>> Consumer::create(ConsumerOptions options) {
  std::string host, port;
  SPILLWAY_RETURN_IF_ERROR(wire::split_address(options.bootstrap, &host, &port));
  if (options.fetch_max_bytes <= 0 || options.partition_max_bytes <= 0 ||
      options.max_poll_records == 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "fetch_max_bytes, partition_max_bytes and max_poll_records must be positive");
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  // Steady-state polls reuse these; sizing them now keeps the first polls
  // from growing them (whole batches may overshoot max_poll_records).
  impl->records.reserve(impl->options.max_poll_records + 4'096);
  impl->channel.reserve(
      std::min<std::size_t>(impl->options.max_response_bytes,
                            static_cast<std::size_t>(impl->options.fetch_max_bytes) + (64u << 10)));
  SPILLWAY_RETURN_IF_ERROR(impl->ensure_connected());
  return std::unique_ptr<Consumer>(new Consumer(std::move(impl)));
}

Consumer::Consumer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Consumer::~Consumer() = default;

Status Consumer::assign(std::string_view topic, std::span<const int32_t> partitions) {
  Impl& c = *impl_;
  Result<TopicDescription> d = c.describe(topic);
  if (!d.ok()) return d.status();
  std::vector<int32_t> wanted(partitions.begin(), partitions.end());
  if (wanted.empty()) {
    for (const PartitionDescription& p : d->partitions) wanted.push_back(p.partition);
  }
  for (int32_t p : wanted) {
    if (p < 0 || static_cast<std::size_t>(p) >= d->partitions.size()) {
      return Status(ErrorCode::kUnknownPartition, "topic '" + std::string(topic) + "' has " +
                                                      std::to_string(d->partitions.size()) +
                                                      " partitions, not " + std::to_string(p + 1));
    }
  }
  for (int32_t p : wanted) {
    if (!c.find(topic, p)) c.assigned.push_back({std::string(topic), p, kResolveCommitted});
  }
  c.pending.reserve(c.assigned.size());
  std::sort(c.assigned.begin(), c.assigned.end(), [](const Assigned& a, const Assigned& b) {
    return a.topic != b.topic ? a.topic < b.topic : a.partition < b.partition;
  });
  c.pending.clear();
  return Status::Ok();
}

void Consumer::unassign() {
  impl_->assigned.clear();
  impl_->pending.clear();
}

Status Consumer::seek(std::string_view topic, int32_t partition, int64_t offset) {
  Assigned* a = impl_->find(topic, partition);
  if (!a) {
    return Status(ErrorCode::kUnknownPartition,
                  std::string(topic) + "/" + std::to_string(partition) + " is not assigned");
  }
  if (offset < 0) return Status(ErrorCode::kInvalidArgument, "offset must not be negative");
  a->position = offset;
  impl_->pending.clear();  // refetched from the positions
  return Status::Ok();
}

Status Consumer::seek_to_beginning(std::string_view topic, int32_t partition) {
  SPILLWAY_RETURN_IF_ERROR(seek(topic, partition, 0));
  impl_->find(topic, partition)->position = kResolveEarliest;
  return Status::Ok();
}

Status Consumer::seek_to_end(std::string_view topic, int32_t partition) {
  SPILLWAY_RETURN_IF_ERROR(seek(topic, partition, 0));
  impl_->find(topic, partition)->position = kResolveLatest;
  return Status::Ok();
}

Result<int64_t> Consumer::position(std::string_view topic, int32_t partition) const {
  Assigned* a = impl_->find(topic, partition);
  if (!a) {
    return Status(ErrorCode::kUnknownPartition,
                  std::string(topic) + "/" + std::to_string(partition) + " is not assigned");
  }
  return a->position >= 0 ? a->position : -1;
}

// Turns every symbolic position into an offset: the group's committed
// offset, else the log start or end per the reset policy.
Status Consumer::Impl::resolve_positions() {
  for (std::size_t i = 0; i < assigned.size();) {
    std::size_t j = i;
    bool unresolved = false;
    while (j < assigned.size() && assigned[j].topic == assigned[i].topic) {
      unresolved |= assigned[j].position < 0;
      ++j;
    }
    if (!unresolved) {
      i = j;
      continue;
    }
    const std::string& topic = assigned[i].topic;
    if (!options.group_id.empty()) {
      std::vector<int32_t> parts;
      for (std::size_t k = i; k < j; ++k) {
        if (assigned[k].position == kResolveCommitted) parts.push_back(assigned[k].partition);
      }
      if (!parts.empty()) {
        Result<std::vector<std::byte>> r = fetch_offsets(topic, parts);
        if (!r.ok()) return r.status();
        Result<messages::FetchOffsetsResponse> decoded =
            messages::decode_fetch_offsets_response(*r);
        if (!decoded.ok()) return decoded.status();
        Status bad;
        for (const messages::FetchOffsetsTopicResult& t : decoded->topics) {
          for (const messages::FetchOffsetsResult& o : t.results) {
            if (o.error_code != ErrorCode::kOk) {
              if (bad.ok()) bad = Status(o.error_code, std::string(o.error_message));
              continue;
            }
            Assigned* a = find(t.name, o.partition);
            if (a && a->position == kResolveCommitted && o.offset >= 0) a->position = o.offset;
          }
        }
        SPILLWAY_RETURN_IF_ERROR(bad);
      }
    }
    bool still = false;
    for (std::size_t k = i; k < j; ++k) still |= assigned[k].position < 0;
    if (still) {
      Result<TopicDescription> d = describe(topic);
      if (!d.ok()) return d.status();
      for (std::size_t k = i; k < j; ++k) {
        Assigned& a = assigned[k];
        if (a.position >= 0) continue;
        const auto part = static_cast<std::size_t>(a.partition);
        if (part >= d->partitions.size()) {
          return Status(ErrorCode::kUnknownPartition,
                        topic + " has no partition " + std::to_string(a.partition));
        }
        const bool earliest =
            a.position == kResolveEarliest ||
            (a.position == kResolveCommitted && options.reset == OffsetReset::kEarliest);
        a.position =
            earliest ? d->partitions[part].log_start_offset : d->partitions[part].high_watermark;
      }
    }
    i = j;
  }
  return Status::Ok();
}

Result<int32_t> Consumer::Impl::send_fetch(std::chrono::milliseconds wait) {
  // `assigned` is sorted by topic: each run of equal topics is one entry.
  fetch_topics.clear();
  fetch_partitions.clear();
  for (const Assigned& a : assigned) {
    fetch_partitions.push_back({a.partition, a.position, options.partition_max_bytes});
  }
  for (std::size_t i = 0; i < assigned.size();) {
    std::size_t j = i;
    while (j < assigned.size() && assigned[j].topic == assigned[i].topic) ++j;
    fetch_topics.push_back({assigned[i].topic, std::span<const messages::FetchPartitionRequest>(
                                                   fetch_partitions.data() + i, j - i)});
    i = j;
  }
  messages::FetchRequest request;
  request.max_wait_ms = static_cast<int32_t>(wait.count());
  request.min_bytes = 1;
  request.max_bytes = options.fetch_max_bytes;
  request.topics = fetch_topics;

  WriteBuffer out(request_scratch);
  const int32_t correlation_id = channel.next_correlation_id();
  SPILLWAY_RETURN_IF_ERROR(wire::write_frame(
      out, frame::ApiKey::kFetch, messages::kFetchVersion, correlation_id,
      [&](WriteBuffer& body) { return messages::encode_fetch_request(request, body); }));
  SPILLWAY_RETURN_IF_ERROR(channel.send(out));
  return correlation_id;
}

Result<wire::Response> Consumer::Impl::read_fetch(int32_t correlation_id,
                                                  std::chrono::milliseconds wait) {
  Result<wire::Response> response = channel.read_response(options.request_timeout + wait);
  if (response.ok() && response->correlation_id != correlation_id) {
    channel.close();
    return Status(ErrorCode::kCorruptMessage,
                  channel.address() + ": fetch response correlation id " +
                      std::to_string(response->correlation_id) + " does not match request " +
                      std::to_string(correlation_id));
  }
  return response;
}

Status Consumer::Impl::take_response_into_pending(const wire::Response& response) {
  if (response.error != ErrorCode::kOk) {
    return frame::decode_error_body(response.error, response.body);
  }
  Result<messages::FetchResponse> decoded = messages::decode_fetch_response(response.body);
  if (!decoded.ok()) return decoded.status();
  Status error;
  for (const messages::FetchTopicResult& t : decoded->topics) {
    for (const messages::FetchPartitionResult& r : t.results) {
      Assigned* a = find(t.name, r.partition);
      if (!a) continue;
      if (r.error_code == ErrorCode::kOffsetOutOfRange) {
        // Restart inside the valid range, per the reset policy.
        a->position =
            options.reset == OffsetReset::kEarliest ? r.log_start_offset : r.high_watermark;
        continue;
      }
      if (r.error_code != ErrorCode::kOk) {
        if (error.ok()) {
          error = Status(r.error_code, t.name.empty() ? std::string(r.error_message)
                                                      : std::string(t.name) + "/" +
                                                            std::to_string(r.partition) + ": " +
                                                            std::string(r.error_message));
        }
        continue;
      }
      if (!r.records.empty()) {
        pending.push_back({static_cast<std::size_t>(a - assigned.data()), r.records});
      }
    }
  }
  return error;
}

Result<std::span<const std::byte>> Consumer::Impl::decompress(std::span<const std::byte> batch) {
  if (arena_used == arena.size()) arena.emplace_back();
  ArenaBuffer& buf = arena[arena_used];
  for (;;) {
    if (buf.capacity == 0) {
      buf.capacity = 1u << 20;
      buf.data = std::make_unique_for_overwrite<std::byte[]>(buf.capacity);
    }
    Result<std::span<const std::byte>> r =
        batch::decompress_records(batch, {buf.data.get(), buf.capacity});
    if (r.ok()) {
      ++arena_used;
      return r;
    }
    if (r.status().code() != ErrorCode::kBatchTooLarge || buf.capacity >= batch::kMaxRecordsBytes) {
      return r.status();
    }
    buf.capacity = std::min(buf.capacity * 4, batch::kMaxRecordsBytes);
    buf.data = std::make_unique_for_overwrite<std::byte[]>(buf.capacity);
  }
}

// "topic/partition offset N: " for errors about a batch.
std::string Consumer::Impl::where(const Assigned& a, int64_t offset) {
  return a.topic + "/" + std::to_string(a.partition) + " offset " + std::to_string(offset) + ": ";
}

// The CRC-32C covers everything from the attributes on (records included),
// so it is checked before any of those fields is believed: a flipped bit in
// last_offset_delta could otherwise make a batch look already consumed.
Status Consumer::Impl::take_batch(Assigned& a, const batch::BatchHeader& h,
                                  std::span<const std::byte> bytes) {
  const uint32_t crc = crc32c(bytes.subspan(batch::kAttributesPos));
  if (crc != h.crc) {
    char detail[128];
    std::snprintf(detail, sizeof(detail),
                  "corrupt batch, CRC-32C %08x but the batch says %08x; none of its records "
                  "is returned",
                  static_cast<unsigned>(crc), static_cast<unsigned>(h.crc));
    return Status(ErrorCode::kCorruptMessage, where(a, h.base_offset) + detail);
  }
  if (h.last_offset() < a.position) return Status::Ok();  // entirely before the position
  std::span<const std::byte> block = batch::records_block(bytes);
  if (h.compression() == batch::Compression::kZstd) {
    Result<std::span<const std::byte>> d = decompress(bytes);
    if (!d.ok()) {
      return Status(d.status().code(), where(a, h.base_offset) + std::string(d.status().message()));
    }
    block = *d;
  } else if (h.compression() != batch::Compression::kNone) {
    return Status(ErrorCode::kCorruptMessage,
                  where(a, h.base_offset) + "batch with an unsupported codec");
  }
  const std::size_t mark = records.size();
  const bool log_append_time = (h.attributes & batch::kTimestampTypeLogAppend) != 0;
  batch::RecordReader reader(block, h.record_count);
  batch::RecordView v;
  while (reader.next(&v)) {
    const int64_t offset = h.base_offset + v.offset_delta;
    if (offset < a.position) continue;
    ConsumerRecord& r = records.emplace_back();
    r.topic = a.topic;
    r.partition = a.partition;
    r.offset = offset;
    r.timestamp = log_append_time ? h.max_timestamp : h.base_timestamp + v.timestamp_delta;
    r.key = v.key;
    r.has_key = !v.key_is_null;
    r.value = v.value;
    r.header_count = v.header_count;
    r.encoded_headers = v.headers;
  }
  if (!reader.status().ok()) {
    records.resize(mark);  // all of a batch or nothing
    return Status(reader.status().code(),
                  where(a, h.base_offset) + std::string(reader.status().message()));
  }
  a.position = h.last_offset() + 1;
  return Status::Ok();
}

// Hands out whole batches from `pending` into `records` until about
// max_poll_records are there, advancing positions. A batch that cannot be
// read (corrupt, undecodable) stays at the head of `pending`: the records
// before it are handed out by this poll, its error is returned by the next
// one, and so on until a seek, so nothing after it is ever handed out
// either.
Status Consumer::Impl::drain_pending() {
  std::size_t p = 0;
  Status error;
  for (; p < pending.size() && records.size() < options.max_poll_records; ++p) {
    Pending& pend = pending[p];
    Assigned& a = assigned[pend.index];
    while (!pend.records.empty() && records.size() < options.max_poll_records) {
      Result<batch::BatchHeader> h = batch::parse_header(pend.records);
      if (!h.ok()) {
        error = Status(h.status().code(), where(a, a.position) + std::string(h.status().message()));
        break;
      }
      if (h->total_size() > pend.records.size()) {  // a cut-off batch: fetch it again
        pend.records = {};
        break;
      }
      error = take_batch(a, *h, pend.records.first(h->total_size()));
      if (!error.ok()) break;
      pend.records = pend.records.subspan(h->total_size());
    }
    if (!error.ok() || !pend.records.empty()) break;
  }
  pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(p));
  return records.empty() ? error : Status::Ok();
}

Result<ConsumerRecords> Consumer::poll(std::chrono::milliseconds timeout) {
  Impl& c = *impl_;
  c.records.clear();
  c.arena_used = 0;
  if (c.assigned.empty()) return Status(ErrorCode::kInvalidArgument, "no partition is assigned");
  const Clock::time_point deadline = Clock::now() + timeout;
  bool reconnected = false;
  for (;;) {
    if (!c.pending.empty()) {
      SPILLWAY_RETURN_IF_ERROR(c.drain_pending());
      if (!c.records.empty()) return ConsumerRecords(c.records);
      if (!c.pending.empty()) continue;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    SPILLWAY_RETURN_IF_ERROR(c.resolve_positions());
    SPILLWAY_RETURN_IF_ERROR(c.ensure_connected());
    const auto wait = std::clamp(left, std::chrono::milliseconds(0), c.options.fetch_max_wait);
    Result<int32_t> sent = c.send_fetch(wait);
    Result<wire::Response> response =
        sent.ok() ? c.read_fetch(*sent, wait) : Result<wire::Response>(sent.status());
    if (!response.ok()) {
      // A connection the broker closed while we were not looking (idle
      // timeout, restart) gets one fresh attempt within this poll.
      if (response.status().code() != ErrorCode::kNotConnected || reconnected) {
        return response.status();
      }
      reconnected = true;
      c.channel.close();
      continue;
    }
    SPILLWAY_RETURN_IF_ERROR(c.take_response_into_pending(*response));
    if (c.pending.empty() && Clock::now() >= deadline) return ConsumerRecords(c.records);
  }
}

Status Consumer::commit() {
  if (impl_->options.group_id.empty()) {
    return Status(ErrorCode::kInvalidArgument, "commit needs a consumer group id");
  }
  std::vector<TopicPartitionOffset> offsets;
  for (const Assigned& a : impl_->assigned) {
    if (a.position >= 0) offsets.push_back({a.topic, a.partition, a.position});
  }
  if (offsets.empty()) return Status::Ok();
  return commit(offsets);
}

Status Consumer::commit(std::span<const TopicPartitionOffset> offsets) {
  Impl& c = *impl_;
  if (c.options.group_id.empty()) {
    return Status(ErrorCode::kInvalidArgument, "commit needs a consumer group id");
  }
  std::vector<TopicPartitionOffset> sorted(offsets.begin(), offsets.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.topic < b.topic; });
  // One CommitOffsetsTopic per run of equal topics, viewing its entries.
  std::vector<messages::CommitOffsetEntry> entries;
  entries.reserve(sorted.size());
  for (const TopicPartitionOffset& o : sorted) entries.push_back({o.partition, o.offset});
  std::vector<messages::CommitOffsetsTopic> topics;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j].topic == sorted[i].topic) ++j;
    topics.push_back(
        {sorted[i].topic, std::span<const messages::CommitOffsetEntry>(entries.data() + i, j - i)});
    i = j;
  }
  const messages::CommitOffsetsRequest request{c.options.group_id, topics};
  Result<std::vector<std::byte>> r = c.control_call(
      frame::ApiKey::kCommitOffsets, messages::kCommitOffsetsVersion,
      [&](WriteBuffer& out) { return messages::encode_commit_offsets_request(request, out); });
  if (!r.ok()) return r.status();
  Result<messages::CommitOffsetsResponse> decoded = messages::decode_commit_offsets_response(*r);
  if (!decoded.ok()) return decoded.status();
  for (const messages::CommitOffsetsTopicResult& t : decoded->topics) {
    for (const messages::PartitionError& o : t.results) {
      if (o.error_code != ErrorCode::kOk) {
        return Status(o.error_code, std::string(t.name) + "/" + std::to_string(o.partition) + ": " +
                                        std::string(o.error_message));
      }
    }
  }
  return Status::Ok();
}

Result<int64_t> Consumer::committed(std::string_view topic, int32_t partition) {
  Impl& c = *impl_;
  if (c.options.group_id.empty()) {
    return Status(ErrorCode::kInvalidArgument, "committed offsets need a consumer group id");
  }
  const int32_t parts[] = {partition};
  Result<std::vector<std::byte>> r = c.fetch_offsets(topic, parts);
  if (!r.ok()) return r.status();
  Result<messages::FetchOffsetsResponse> decoded = messages::decode_fetch_offsets_response(*r);
  if (!decoded.ok()) return decoded.status();
  int64_t offset = -1;
  Status bad;
  for (const messages::FetchOffsetsTopicResult& t : decoded->topics) {
    for (const messages::FetchOffsetsResult& o : t.results) {
      if (o.error_code != ErrorCode::kOk) {
        bad = Status(o.error_code, std::string(o.error_message));
      } else if (t.name == topic && o.partition == partition) {
        offset = o.offset;
      }
    }
  }
  SPILLWAY_RETURN_IF_ERROR(bad);
  return offset;
}

Result<TopicDescription> Consumer::describe(std::string_view topic) {
  return impl_->describe(topic);
}

}  // namespace spillway
