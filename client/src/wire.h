// The client's encoders and decoders for the issue-5 request bodies
// (Produce, Fetch, Metadata, CreateTopics, DeleteTopics, CommitOffsets,
// FetchOffsets), written from the layouts in docs/protocol.md. Requests are
// framed straight into a WriteBuffer (header first, lengths patched at the
// end); responses are read through a bounds-checked Cursor that returns views
// into the received body, so decoding allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/frame.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"
#include "spillway/connection.h"
#include "spillway/consumer.h"
#include "spillway/topic_description.h"

namespace spillway::wire {

// A bounds-checked reader over a response body. A failed read exhausts the
// cursor and clears ok(), so a decoder reads a whole structure and checks
// ok() once. Strings and byte fields are views into the body.
class Cursor {
 public:
  explicit Cursor(std::span<const std::byte> body) noexcept : rest_(body) {}
  int8_t i8() noexcept;
  int16_t i16() noexcept;
  int32_t i32() noexcept;
  int64_t i64() noexcept;
  std::string_view str() noexcept;              // [u16 length][bytes]
  std::span<const std::byte> bytes() noexcept;  // [i32 length][bytes]; -1 = empty
  // An array count, rejected (cursor failed) when negative or when `count`
  // items of at least `min_item_bytes` each cannot fit the bytes left.
  int32_t count(std::size_t min_item_bytes) noexcept;
  bool ok() const noexcept { return ok_; }
  std::size_t remaining() const noexcept { return rest_.size(); }
  void fail() noexcept {
    ok_ = false;
    rest_ = {};
  }

 private:
  const std::byte* take(std::size_t n) noexcept;
  std::span<const std::byte> rest_;
  bool ok_ = true;
};

// Appends a request frame header with a placeholder length; returns the
// frame's start position in `out`, for end_frame().
Status begin_frame(WriteBuffer& out, frame::ApiKey key, int32_t correlation_id) noexcept;
// Patches the length of the frame that began at `start`.
void end_frame(WriteBuffer& out, uint64_t start) noexcept;
// Patches an i32 already written at `pos` (array counts, byte lengths).
void patch_i32(WriteBuffer& out, uint64_t pos, int32_t value) noexcept;
Status write_str(WriteBuffer& out, std::string_view s) noexcept;

// --- Metadata (3) ---------------------------------------------------------
struct TopicMetadata {
  TopicDescription topic;
  ErrorCode error = ErrorCode::kOk;
  std::string error_message;
};
// Body of a Metadata request; an empty list asks for every topic.
void encode_metadata_request(std::span<const std::string_view> topics, bool all,
                             std::vector<std::byte>& out);
Result<std::vector<TopicMetadata>> decode_metadata_response(std::span<const std::byte> body);
// One Metadata round trip on `connection` for `topics` (every topic when
// `all`).
Result<std::vector<TopicMetadata>> request_metadata(Connection& connection,
                                                    std::span<const std::string_view> topics,
                                                    bool all);
// describe: the one topic's description, or its error (kUnknownTopic when
// the broker does not list it).
Result<TopicDescription> describe_topic(Connection& connection, std::string_view topic);

// --- CreateTopics (4) / DeleteTopics (5) --------------------------------------
struct CreateTopicRequest {
  std::string_view name;
  int32_t partitions = 1;
  std::string_view flush_policy;  // "" = broker default
  int64_t retention_bytes = -2;   // -2 = broker default, -1 = unlimited
  int64_t retention_ms = -2;
  int64_t segment_bytes = -2;
};
void encode_create_topic_request(const CreateTopicRequest& request, std::vector<std::byte>& out);
void encode_delete_topic_request(std::string_view name, std::vector<std::byte>& out);

// --- CommitOffsets (7) / FetchOffsets (8) requests ---------------------------------
// `offsets` grouped by topic (equal topics adjacent).
void encode_commit_offsets_request(std::string_view group,
                                   std::span<const TopicPartitionOffset> offsets,
                                   std::vector<std::byte>& out);
void encode_fetch_offsets_request(std::string_view group, std::string_view topic,
                                  std::span<const int32_t> partitions, std::vector<std::byte>& out);

// --- Produce (1) responses -------------------------------------------------------
struct ProduceResult {
  std::string_view topic;
  int32_t partition = 0;
  ErrorCode error = ErrorCode::kOk;
  std::string_view error_message;
  int64_t base_offset = -1;
  int32_t record_count = 0;
  int64_t log_start_offset = -1;
};
// Calls fn(const ProduceResult&) for each result in order. kCorruptMessage
// if the body is malformed (results before the fault have been delivered).
template <typename Fn>
Status for_each_produce_result(std::span<const std::byte> body, Fn&& fn);

// --- Fetch (2) responses ---------------------------------------------------------
struct FetchResult {
  std::string_view topic;
  int32_t partition = 0;
  ErrorCode error = ErrorCode::kOk;
  std::string_view error_message;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  std::span<const std::byte> records;  // whole RecordBatch v2 batches
};
template <typename Fn>
Status for_each_fetch_result(std::span<const std::byte> body, Fn&& fn);

// --- FetchOffsets (8) / CommitOffsets (7) responses ----------------------------------
struct OffsetResult {
  std::string_view topic;
  int32_t partition = 0;
  int64_t offset = -1;  // FetchOffsets only; -1 = none committed
  ErrorCode error = ErrorCode::kOk;
  std::string_view error_message;
};
template <typename Fn>
Status for_each_offset_result(std::span<const std::byte> body, bool with_offset, Fn&& fn);

inline Status corrupt(std::string_view what) {
  return Status(ErrorCode::kCorruptMessage, "malformed " + std::string(what) + " response");
}

template <typename Fn>
Status for_each_produce_result(std::span<const std::byte> body, Fn&& fn) {
  Cursor c(body);
  const int32_t topics = c.count(6);
  for (int32_t t = 0; t < topics && c.ok(); ++t) {
    ProduceResult r;
    r.topic = c.str();
    const int32_t results = c.count(28);
    for (int32_t i = 0; i < results && c.ok(); ++i) {
      r.partition = c.i32();
      r.error = static_cast<ErrorCode>(c.i16());
      r.error_message = c.str();
      r.base_offset = c.i64();
      r.record_count = c.i32();
      r.log_start_offset = c.i64();
      if (c.ok()) fn(static_cast<const ProduceResult&>(r));
    }
  }
  return c.ok() ? Status::Ok() : corrupt("Produce");
}

template <typename Fn>
Status for_each_fetch_result(std::span<const std::byte> body, Fn&& fn) {
  Cursor c(body);
  const int32_t topics = c.count(6);
  for (int32_t t = 0; t < topics && c.ok(); ++t) {
    FetchResult r;
    r.topic = c.str();
    const int32_t results = c.count(28);
    for (int32_t i = 0; i < results && c.ok(); ++i) {
      r.partition = c.i32();
      r.error = static_cast<ErrorCode>(c.i16());
      r.error_message = c.str();
      r.high_watermark = c.i64();
      r.log_start_offset = c.i64();
      r.records = c.bytes();
      if (c.ok()) fn(static_cast<const FetchResult&>(r));
    }
  }
  return c.ok() ? Status::Ok() : corrupt("Fetch");
}

template <typename Fn>
Status for_each_offset_result(std::span<const std::byte> body, bool with_offset, Fn&& fn) {
  Cursor c(body);
  const int32_t topics = c.count(6);
  for (int32_t t = 0; t < topics && c.ok(); ++t) {
    OffsetResult r;
    r.topic = c.str();
    const int32_t results = c.count(with_offset ? 16 : 8);
    for (int32_t i = 0; i < results && c.ok(); ++i) {
      r.partition = c.i32();
      if (with_offset) r.offset = c.i64();
      r.error = static_cast<ErrorCode>(c.i16());
      r.error_message = c.str();
      if (c.ok()) fn(static_cast<const OffsetResult&>(r));
    }
  }
  return c.ok() ? Status::Ok() : corrupt(with_offset ? "FetchOffsets" : "CommitOffsets");
}

}  // namespace spillway::wire
