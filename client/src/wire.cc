// Client-side codecs of the issue-5 request bodies (see wire.h).
#include "wire.h"

#include "spillway/common/endian.h"

namespace spillway::wire {

const std::byte* Cursor::take(std::size_t n) noexcept {
  if (rest_.size() < n) {
    fail();
    return nullptr;
  }
  const std::byte* p = rest_.data();
  rest_ = rest_.subspan(n);
  return p;
}

int8_t Cursor::i8() noexcept {
  const std::byte* p = take(1);
  return p ? static_cast<int8_t>(*p) : 0;
}
int16_t Cursor::i16() noexcept {
  const std::byte* p = take(2);
  return p ? static_cast<int16_t>(load_be<uint16_t>(p)) : 0;
}
int32_t Cursor::i32() noexcept {
  const std::byte* p = take(4);
  return p ? static_cast<int32_t>(load_be<uint32_t>(p)) : 0;
}
int64_t Cursor::i64() noexcept {
  const std::byte* p = take(8);
  return p ? static_cast<int64_t>(load_be<uint64_t>(p)) : 0;
}
std::string_view Cursor::str() noexcept {
  const std::byte* p = take(2);
  if (!p) return {};
  const uint16_t n = load_be<uint16_t>(p);
  const std::byte* s = take(n);
  return s ? std::string_view(reinterpret_cast<const char*>(s), n) : std::string_view();
}
std::span<const std::byte> Cursor::bytes() noexcept {
  const int32_t n = i32();
  if (n == -1 || !ok_) return {};
  if (n < 0) {
    fail();
    return {};
  }
  const std::byte* p = take(static_cast<std::size_t>(n));
  return p ? std::span<const std::byte>(p, static_cast<std::size_t>(n))
           : std::span<const std::byte>();
}
int32_t Cursor::count(std::size_t min_item_bytes) noexcept {
  const int32_t n = i32();
  if (!ok_) return 0;
  if (n < 0 || static_cast<uint64_t>(n) * min_item_bytes > rest_.size()) {
    fail();
    return 0;
  }
  return n;
}

Status begin_frame(WriteBuffer& out, frame::ApiKey key, int32_t correlation_id) noexcept {
  std::byte header[frame::kRequestHeaderBytes];
  frame::encode_request_header(
      {static_cast<int16_t>(key), 0, correlation_id, 0},
      std::span<std::byte, frame::kRequestHeaderBytes>(header, frame::kRequestHeaderBytes));
  return out.write(header);
}

void end_frame(WriteBuffer& out, uint64_t start) noexcept {
  std::byte length[4];
  store_be<uint32_t>(length,
                     static_cast<uint32_t>(out.bytes_written() - start - frame::kLengthBytes));
  out.overwrite(start, length);
}

void patch_i32(WriteBuffer& out, uint64_t pos, int32_t value) noexcept {
  std::byte b[4];
  store_be<uint32_t>(b, static_cast<uint32_t>(value));
  out.overwrite(pos, b);
}

Status write_str(WriteBuffer& out, std::string_view s) noexcept {
  SPILLWAY_RETURN_IF_ERROR(out.write_be<uint16_t>(static_cast<uint16_t>(s.size())));
  return out.write(std::as_bytes(std::span<const char>(s.data(), s.size())));
}

namespace {

void put_i16(std::vector<std::byte>& out, int16_t v) {
  std::byte b[2];
  store_be<uint16_t>(b, static_cast<uint16_t>(v));
  out.insert(out.end(), b, b + 2);
}
void put_i32(std::vector<std::byte>& out, int32_t v) {
  std::byte b[4];
  store_be<uint32_t>(b, static_cast<uint32_t>(v));
  out.insert(out.end(), b, b + 4);
}
void put_i64(std::vector<std::byte>& out, int64_t v) {
  std::byte b[8];
  store_be<uint64_t>(b, static_cast<uint64_t>(v));
  out.insert(out.end(), b, b + 8);
}
void put_str(std::vector<std::byte>& out, std::string_view s) {
  put_i16(out, static_cast<int16_t>(static_cast<uint16_t>(s.size())));
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  out.insert(out.end(), p, p + s.size());
}

}  // namespace

void encode_metadata_request(std::span<const std::string_view> topics, bool all,
                             std::vector<std::byte>& out) {
  if (all) {
    put_i32(out, -1);
    return;
  }
  put_i32(out, static_cast<int32_t>(topics.size()));
  for (std::string_view t : topics) put_str(out, t);
}

Result<std::vector<TopicMetadata>> decode_metadata_response(std::span<const std::byte> body) {
  Cursor c(body);
  std::vector<TopicMetadata> topics;
  const int32_t n = c.count(26);
  topics.reserve(static_cast<std::size_t>(n));
  for (int32_t t = 0; t < n && c.ok(); ++t) {
    TopicMetadata m;
    m.topic.name = std::string(c.str());
    m.error = static_cast<ErrorCode>(c.i16());
    m.error_message = std::string(c.str());
    m.topic.flush_policy = std::string(c.str());
    m.topic.retention_bytes = c.i64();
    m.topic.retention_ms = c.i64();
    const int32_t parts = c.count(20);
    m.topic.partitions.reserve(static_cast<std::size_t>(parts));
    for (int32_t p = 0; p < parts && c.ok(); ++p) {
      PartitionDescription pm;
      pm.partition = c.i32();
      pm.log_start_offset = c.i64();
      pm.high_watermark = c.i64();
      m.topic.partitions.push_back(pm);
    }
    topics.push_back(std::move(m));
  }
  if (!c.ok()) return corrupt("Metadata");
  return topics;
}

Result<std::vector<TopicMetadata>> request_metadata(Connection& connection,
                                                    std::span<const std::string_view> topics,
                                                    bool all) {
  std::vector<std::byte> body;
  encode_metadata_request(topics, all, body);
  Result<std::vector<std::byte>> response = connection.request(frame::ApiKey::kMetadata, 0, body);
  if (!response.ok()) return response.status();
  return decode_metadata_response(*response);
}

Result<TopicDescription> describe_topic(Connection& connection, std::string_view topic) {
  const std::string_view names[] = {topic};
  Result<std::vector<TopicMetadata>> m = request_metadata(connection, names, false);
  if (!m.ok()) return m.status();
  for (TopicMetadata& t : *m) {
    if (t.topic.name != topic) continue;
    if (t.error != ErrorCode::kOk) {
      std::string why =
          t.error_message.empty() ? std::string(error_code_name(t.error)) : t.error_message;
      if (why.find(topic) == std::string::npos) why = "topic '" + std::string(topic) + "': " + why;
      return Status(t.error, std::move(why));
    }
    return std::move(t.topic);
  }
  return Status(ErrorCode::kUnknownTopic, "topic '" + std::string(topic) + "' does not exist");
}

void encode_create_topic_request(const CreateTopicRequest& r, std::vector<std::byte>& out) {
  put_str(out, r.name);
  put_i32(out, r.partitions);
  put_str(out, r.flush_policy);
  put_i64(out, r.retention_bytes);
  put_i64(out, r.retention_ms);
  put_i64(out, r.segment_bytes);
}

void encode_delete_topic_request(std::string_view name, std::vector<std::byte>& out) {
  put_str(out, name);
}

void encode_commit_offsets_request(std::string_view group,
                                   std::span<const TopicPartitionOffset> offsets,
                                   std::vector<std::byte>& out) {
  put_str(out, group);
  // Count the topic runs first.
  int32_t topics = 0;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    if (i == 0 || offsets[i].topic != offsets[i - 1].topic) ++topics;
  }
  put_i32(out, topics);
  for (std::size_t i = 0; i < offsets.size();) {
    std::size_t j = i;
    while (j < offsets.size() && offsets[j].topic == offsets[i].topic) ++j;
    put_str(out, offsets[i].topic);
    put_i32(out, static_cast<int32_t>(j - i));
    for (; i < j; ++i) {
      put_i32(out, offsets[i].partition);
      put_i64(out, offsets[i].offset);
    }
  }
}

void encode_fetch_offsets_request(std::string_view group, std::string_view topic,
                                  std::span<const int32_t> partitions,
                                  std::vector<std::byte>& out) {
  put_str(out, group);
  put_i32(out, 1);
  put_str(out, topic);
  put_i32(out, static_cast<int32_t>(partitions.size()));
  for (int32_t p : partitions) put_i32(out, p);
}

}  // namespace spillway::wire
