// Round trips and malformed-input checks for the native body codecs in
// common/include/spillway/common/messages/.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "spillway/common/endian.h"
#include "spillway/common/messages/fetch.h"
#include "spillway/common/messages/metadata.h"
#include "spillway/common/messages/offsets.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/messages/produce_writer.h"
#include "spillway/common/messages/topics.h"

namespace spillway::messages {
namespace {

// Encodes with `fn(WriteBuffer&)` (a small scratch, so big bodies spill) and
// returns the bytes.
template <typename Fn>
std::vector<std::byte> encode(Fn&& fn) {
  std::array<std::byte, 64> scratch;
  WriteBuffer buf(scratch);
  Status st = fn(buf);
  EXPECT_TRUE(st.ok()) << st.to_string();
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

template <typename T>
std::vector<T> collect(const Array<T>& a) {
  std::vector<T> out;
  for (const T& v : a) out.push_back(v);
  return out;
}

TEST(ProduceCodec, RequestRoundTrip) {
  const std::string batch_a(300, 'a'), batch_b(5, 'b');
  const std::array<ProducePartitionData, 2> parts_t1 = {
      ProducePartitionData{3, as_bytes(batch_a)},
      ProducePartitionData{kRouteByKey, as_bytes(batch_b)}};
  const std::array<ProducePartitionData, 0> parts_t2 = {};
  const std::array<ProduceTopicData, 2> topics = {ProduceTopicData{"orders", parts_t1},
                                                  ProduceTopicData{"empty", parts_t2}};
  ProduceRequest req;
  req.acks = Acks::kDurable;
  req.timeout_ms = 1234;
  req.topics = topics;
  const std::vector<std::byte> body =
      encode([&](WriteBuffer& b) { return encode_produce_request(req, b); });

  Result<ProduceRequest> got = decode_produce_request(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->acks, Acks::kDurable);
  EXPECT_EQ(got->timeout_ms, 1234);
  std::vector<ProduceTopicData> t = collect(got->topics);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].name, "orders");
  EXPECT_EQ(t[1].name, "empty");
  EXPECT_EQ(t[1].partitions.size(), 0);
  std::vector<ProducePartitionData> p = collect(t[0].partitions);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].partition, 3);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(p[0].record_batch.data()),
                        p[0].record_batch.size()),
            batch_a);
  EXPECT_EQ(p[1].partition, kRouteByKey);
  EXPECT_EQ(p[1].record_batch.size(), 5u);
  // The decoded batch is a view into the body, not a copy.
  EXPECT_GE(p[0].record_batch.data(), body.data());
  EXPECT_LE(p[0].record_batch.data() + p[0].record_batch.size(), body.data() + body.size());
}

TEST(ProduceCodec, ResponseRoundTrip) {
  const std::array<ProducePartitionResult, 2> results = {
      ProducePartitionResult{0, ErrorCode::kOk, "", 100, 7, 0},
      ProducePartitionResult{9, ErrorCode::kUnknownPartition, "partition 9 of 4", -1, 0, -1}};
  const std::array<ProduceTopicResult, 1> topics = {ProduceTopicResult{"t", results}};
  ProduceResponse resp;
  resp.topics = topics;
  const auto body = encode([&](WriteBuffer& b) { return encode_produce_response(resp, b); });
  Result<ProduceResponse> got = decode_produce_response(body);
  ASSERT_TRUE(got.ok());
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  auto r = collect(t[0].results);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].base_offset, 100);
  EXPECT_EQ(r[0].record_count, 7);
  EXPECT_EQ(r[1].partition, 9);
  EXPECT_EQ(r[1].error_code, ErrorCode::kUnknownPartition);
  EXPECT_EQ(r[1].error_message, "partition 9 of 4");
  EXPECT_EQ(r[1].log_start_offset, -1);
}

TEST(ProduceCodec, RejectsBadAcksTruncationAndTrailingBytes) {
  ProduceRequest req;
  const auto body = encode([&](WriteBuffer& b) { return encode_produce_request(req, b); });
  auto bad_acks = body;
  bad_acks[0] = std::byte{3};
  EXPECT_EQ(decode_produce_request(bad_acks).status().code(), ErrorCode::kCorruptMessage);
  auto trailing = body;
  trailing.push_back(std::byte{0});
  EXPECT_EQ(decode_produce_request(trailing).status().code(), ErrorCode::kCorruptMessage);
  for (size_t n = 0; n < body.size(); ++n) {
    EXPECT_FALSE(decode_produce_request(std::span(body).first(n)).ok()) << n;
  }
}

TEST(ProduceCodec, LyingCountsAndLengthsAreRejected) {
  // acks, timeout, 1 topic "t", a partition count of 2^31-1 with 8 bytes left.
  std::vector<std::byte> body(1 + 4 + 4 + 3 + 4 + 8);
  size_t at = 0;
  body[at++] = std::byte{1};
  store_be<int32_t>(&body[at], 0), at += 4;
  store_be<int32_t>(&body[at], 1), at += 4;
  store_be<uint16_t>(&body[at], 1), at += 2;
  body[at++] = std::byte{'t'};
  store_be<int32_t>(&body[at], INT32_MAX), at += 4;
  EXPECT_EQ(decode_produce_request(body).status().code(), ErrorCode::kCorruptMessage);
  // One partition whose batch length claims more than the body holds.
  store_be<int32_t>(&body[at - 4], 1);
  store_be<int32_t>(&body[at], 0);
  store_be<int32_t>(&body[at + 4], 1000);
  EXPECT_EQ(decode_produce_request(body).status().code(), ErrorCode::kCorruptMessage);
  // A negative batch length.
  store_be<int32_t>(&body[at + 4], -5);
  EXPECT_EQ(decode_produce_request(body).status().code(), ErrorCode::kCorruptMessage);
  // Exactly right: an empty batch.
  store_be<int32_t>(&body[at + 4], 0);
  EXPECT_TRUE(decode_produce_request(body).ok());
  // A negative topic count.
  store_be<int32_t>(&body[5], -1);
  EXPECT_EQ(decode_produce_request(body).status().code(), ErrorCode::kCorruptMessage);
}

TEST(FetchCodec, RequestAndResponseRoundTrip) {
  const std::array<FetchPartitionRequest, 2> parts = {FetchPartitionRequest{0, 42, 1 << 20},
                                                      FetchPartitionRequest{5, 0, 100}};
  const std::array<FetchTopicRequest, 1> topics = {FetchTopicRequest{"events", parts}};
  FetchRequest req{500, 1, 4 << 20, topics};
  const auto body = encode([&](WriteBuffer& b) { return encode_fetch_request(req, b); });
  auto got = decode_fetch_request(body);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->max_wait_ms, 500);
  EXPECT_EQ(got->min_bytes, 1);
  EXPECT_EQ(got->max_bytes, 4 << 20);
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].name, "events");
  auto p = collect(t[0].partitions);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].fetch_offset, 42);
  EXPECT_EQ(p[1].partition, 5);
  EXPECT_EQ(p[1].partition_max_bytes, 100);

  const std::string records(1000, 'r');
  const std::array<FetchPartitionResult, 2> results = {
      FetchPartitionResult{0, ErrorCode::kOk, "", 77, 3, as_bytes(records)},
      FetchPartitionResult{5, ErrorCode::kOffsetOutOfRange, "offset 0 below 10", 20, 10, {}}};
  const std::array<FetchTopicResult, 1> rtopics = {FetchTopicResult{"events", results}};
  FetchResponse resp{rtopics};
  const auto rbody = encode([&](WriteBuffer& b) { return encode_fetch_response(resp, b); });
  auto rgot = decode_fetch_response(rbody);
  ASSERT_TRUE(rgot.ok());
  auto rt = collect(rgot->topics);
  ASSERT_EQ(rt.size(), 1u);
  auto r = collect(rt[0].results);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].high_watermark, 77);
  EXPECT_EQ(r[0].log_start_offset, 3);
  EXPECT_EQ(r[0].records.size(), 1000u);
  EXPECT_EQ(r[1].error_code, ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(r[1].high_watermark, 20);
  EXPECT_EQ(r[1].log_start_offset, 10);
  EXPECT_TRUE(r[1].records.empty());
}

Status write_ten_x(const void*, WriteBuffer& out) {
  const std::string records(10, 'x');
  return out.write(as_bytes(records));
}

TEST(FetchCodec, RecordsWrittenInPlaceMatchWholeEncode) {
  // The broker copies records from the log straight into the response
  // (Records::write_deferred); the bytes are those of an in-memory encode.
  const std::string records(10, 'x');
  FetchPartitionResult v{2, ErrorCode::kOk, "", 9, 0, Records{.bytes = as_bytes(records)}};
  FetchPartitionResult deferred = v;
  deferred.records =
      Records::deferred(10, &write_ten_x, nullptr);
  const std::array<FetchTopicResult, 1> whole_topics = {
      FetchTopicResult{"t", std::span<const FetchPartitionResult>(&v, 1)}};
  const std::array<FetchTopicResult, 1> split_topics = {
      FetchTopicResult{"t", std::span<const FetchPartitionResult>(&deferred, 1)}};
  const auto whole =
      encode([&](WriteBuffer& b) { return encode_fetch_response({whole_topics}, b); });
  const auto split =
      encode([&](WriteBuffer& b) { return encode_fetch_response({split_topics}, b); });
  EXPECT_EQ(whole, split);
}

TEST(MetadataCodec, RequestAllAndNamed) {
  MetadataRequest all;
  const auto body = encode([&](WriteBuffer& b) { return encode_metadata_request(all, b); });
  EXPECT_EQ(body.size(), 4u);
  auto got = decode_metadata_request(body);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->all_topics);

  const std::array<std::string_view, 2> names = {"a", "bb"};
  MetadataRequest some{false, names};
  const auto body2 = encode([&](WriteBuffer& b) { return encode_metadata_request(some, b); });
  auto got2 = decode_metadata_request(body2);
  ASSERT_TRUE(got2.ok());
  EXPECT_FALSE(got2->all_topics);
  EXPECT_EQ(collect(got2->topics), (std::vector<std::string_view>{"a", "bb"}));

  // Count -2 is not "all": malformed.
  std::vector<std::byte> bad(4);
  store_be<int32_t>(bad.data(), -2);
  EXPECT_FALSE(decode_metadata_request(bad).ok());
}

TEST(MetadataCodec, ResponseRoundTrip) {
  const std::array<MetadataPartition, 2> parts = {
      MetadataPartition{0, 0, 10, ErrorCode::kOk, ""},
      MetadataPartition{1, 5, 6, ErrorCode::kCorruptMessage, "offsets [5, 6) are damaged"}};
  const std::array<MetadataTopic, 2> topics = {
      MetadataTopic{"t", ErrorCode::kOk, "", "durable", -1, 86'400'000, parts},
      MetadataTopic{"missing", ErrorCode::kUnknownTopic, "unknown topic missing", "", -1, -1, {}}};
  MetadataResponse resp{topics};
  const auto body = encode([&](WriteBuffer& b) { return encode_metadata_response(resp, b); });
  auto got = decode_metadata_response(body);
  ASSERT_TRUE(got.ok());
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].flush_policy, "durable");
  EXPECT_EQ(t[0].retention_ms, 86'400'000);
  auto p = collect(t[0].partitions);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1].log_start_offset, 5);
  EXPECT_EQ(p[1].high_watermark, 6);
  EXPECT_EQ(p[0].error_code, ErrorCode::kOk);
  EXPECT_EQ(p[1].error_code, ErrorCode::kCorruptMessage);
  EXPECT_EQ(p[1].error_message, "offsets [5, 6) are damaged");
  EXPECT_EQ(t[1].error_code, ErrorCode::kUnknownTopic);
  EXPECT_EQ(t[1].partitions.size(), 0);
}

// Version 1 adds each partition's size on disk; version 0 leaves it out on
// the wire and -1 when decoded.
TEST(MetadataCodec, Version1CarriesPartitionSizes) {
  const std::array<MetadataPartition, 1> parts = {MetadataPartition{
      .partition = 0, .log_start_offset = 0, .high_watermark = 10, .size_bytes = 4'096}};
  const std::array<MetadataTopic, 1> topics = {
      MetadataTopic{"t", ErrorCode::kOk, "", "interval", -1, -1, parts}};
  const MetadataResponse resp{topics};
  const auto v1 = encode([&](WriteBuffer& b) { return encode_metadata_response(resp, b, 1); });
  const auto v0 = encode([&](WriteBuffer& b) { return encode_metadata_response(resp, b, 0); });
  EXPECT_EQ(v1.size(), v0.size() + 8);
  auto got = decode_metadata_response(v1, 1);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(collect(collect(got->topics)[0].partitions)[0].size_bytes, 4'096);
  got = decode_metadata_response(v0, 0);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(collect(collect(got->topics)[0].partitions)[0].size_bytes, -1);
  EXPECT_EQ(collect(collect(got->topics)[0].partitions)[0].high_watermark, 10);
  // A v0 body read as v1 is short by the sizes: malformed, not misread.
  EXPECT_FALSE(decode_metadata_response(v0, 1).ok());
}

TEST(TopicsCodec, CreateAndDeleteRoundTrip) {
  CreateTopicsRequest req{"orders", 8, "interval", -1, kUseBrokerDefault, 1 << 20};
  const auto body = encode([&](WriteBuffer& b) { return encode_create_topics_request(req, b); });
  auto got = decode_create_topics_request(body);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->name, "orders");
  EXPECT_EQ(got->partitions, 8);
  EXPECT_EQ(got->flush_policy, "interval");
  EXPECT_EQ(got->retention_bytes, -1);
  EXPECT_EQ(got->retention_ms, kUseBrokerDefault);
  EXPECT_EQ(got->segment_bytes, 1 << 20);
  EXPECT_FALSE(decode_create_topics_request(std::span(body).first(body.size() - 1)).ok());

  DeleteTopicsRequest del{"orders"};
  const auto dbody = encode([&](WriteBuffer& b) { return encode_delete_topics_request(del, b); });
  auto dgot = decode_delete_topics_request(dbody);
  ASSERT_TRUE(dgot.ok());
  EXPECT_EQ(dgot->name, "orders");
}

TEST(OffsetsCodec, CommitRoundTrip) {
  const std::array<CommitOffsetEntry, 2> entries = {CommitOffsetEntry{0, 15},
                                                    CommitOffsetEntry{3, 0}};
  const std::array<CommitOffsetsTopic, 1> topics = {CommitOffsetsTopic{"t", entries}};
  CommitOffsetsRequest req{"group-1", topics};
  const auto body = encode([&](WriteBuffer& b) { return encode_commit_offsets_request(req, b); });
  auto got = decode_commit_offsets_request(body);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->group, "group-1");
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  auto e = collect(t[0].entries);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].offset, 15);
  EXPECT_EQ(e[1].partition, 3);

  const std::array<PartitionError, 2> results = {
      PartitionError{0, ErrorCode::kOk, ""}, PartitionError{3, ErrorCode::kUnknownPartition, "no"}};
  const std::array<CommitOffsetsTopicResult, 1> rt = {CommitOffsetsTopicResult{"t", results}};
  CommitOffsetsResponse resp{rt};
  const auto rbody =
      encode([&](WriteBuffer& b) { return encode_commit_offsets_response(resp, b); });
  auto rgot = decode_commit_offsets_response(rbody);
  ASSERT_TRUE(rgot.ok());
  auto r = collect(collect(rgot->topics)[0].results);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].error_code, ErrorCode::kUnknownPartition);
  EXPECT_EQ(r[1].error_message, "no");
}

TEST(OffsetsCodec, CommitMemberRoundTrip) {
  const std::array<CommitOffsetEntry, 1> entries = {CommitOffsetEntry{2, 40}};
  const std::array<CommitOffsetsTopic, 1> topics = {CommitOffsetsTopic{"t", entries}};
  for (std::optional<std::string_view> instance :
       {std::optional<std::string_view>{}, std::optional<std::string_view>{"static-1"}}) {
    const CommitMemberOffsetsRequest req{.group = "g",
                                         .member_id = "m-1",
                                         .generation_id = 7,
                                         .group_instance_id = instance,
                                         .topics = topics};
    const auto body =
        encode([&](WriteBuffer& b) { return encode_commit_member_offsets_request(req, b); });
    auto got = decode_commit_member_offsets_request(body);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_EQ(got->group, "g");
    EXPECT_EQ(got->member_id, "m-1");
    EXPECT_EQ(got->generation_id, 7);
    EXPECT_EQ(got->group_instance_id, instance);
    auto t = collect(got->topics);
    ASSERT_EQ(t.size(), 1u);
    auto e = collect(t[0].entries);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].partition, 2);
    EXPECT_EQ(e[0].offset, 40);
    // Every cut short of the whole body is corrupt.
    for (size_t cut = 0; cut < body.size(); ++cut) {
      EXPECT_FALSE(decode_commit_member_offsets_request(std::span(body).first(cut)).ok()) << cut;
    }
  }
}

TEST(OffsetsCodec, FetchOffsetsRoundTrip) {
  const std::array<int32_t, 3> parts = {0, 1, 7};
  const std::array<FetchOffsetsTopic, 1> topics = {FetchOffsetsTopic{"t", parts}};
  FetchOffsetsRequest req{"g", topics};
  const auto body = encode([&](WriteBuffer& b) { return encode_fetch_offsets_request(req, b); });
  auto got = decode_fetch_offsets_request(body);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->group, "g");
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(collect(t[0].partitions), (std::vector<int32_t>{0, 1, 7}));

  const std::array<FetchOffsetsResult, 2> results = {FetchOffsetsResult{0, 12, ErrorCode::kOk, ""},
                                                     FetchOffsetsResult{1, -1, ErrorCode::kOk, ""}};
  const std::array<FetchOffsetsTopicResult, 1> rt = {FetchOffsetsTopicResult{"t", results}};
  FetchOffsetsResponse resp{rt};
  const auto rbody = encode([&](WriteBuffer& b) { return encode_fetch_offsets_response(resp, b); });
  auto rgot = decode_fetch_offsets_response(rbody);
  ASSERT_TRUE(rgot.ok());
  auto r = collect(collect(rgot->topics)[0].results);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].offset, 12);
  EXPECT_EQ(r[1].offset, -1);

  // A partition count that claims more i32s than the bytes left.
  std::vector<std::byte> bad = body;
  store_be<int32_t>(&bad[bad.size() - 16], 4);
  EXPECT_FALSE(decode_fetch_offsets_request(bad).ok());
}

TEST(ProduceRequestWriter, StreamsTheSameBytesAsTheWholeEncoder) {
  const std::string batch_a(300, 'a'), batch_b(5, 'b'), batch_c(1, 'c');
  const std::array<ProducePartitionData, 2> parts_t1 = {ProducePartitionData{3, as_bytes(batch_a)},
                                                        ProducePartitionData{0, as_bytes(batch_b)}};
  const std::array<ProducePartitionData, 1> parts_t2 = {
      ProducePartitionData{kRouteByKey, as_bytes(batch_c)}};
  const std::array<ProduceTopicData, 2> topics = {ProduceTopicData{"orders", parts_t1},
                                                  ProduceTopicData{"audit", parts_t2}};
  ProduceRequest req;
  req.acks = Acks::kNone;
  req.timeout_ms = 777;
  req.topics = topics;
  const auto whole = encode([&](WriteBuffer& b) { return encode_produce_request(req, b); });

  // The batches go in raw, as a batch builder appends them to the buffer.
  const auto streamed = encode([&](WriteBuffer& b) {
    ProduceRequestWriter w(b, req.acks, req.timeout_ms);
    for (const ProduceTopicData& t : topics) {
      w.begin_topic(t.name);
      for (const ProducePartitionData& p : t.partitions) {
        w.begin_partition(p.partition);
        EXPECT_TRUE(b.write(p.record_batch).ok());
        w.end_partition();
      }
    }
    return w.finish();
  });
  EXPECT_EQ(streamed, whole);

  Result<ProduceRequest> got = decode_produce_request(streamed);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].name, "audit");
  auto p = collect(t[0].partitions);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].record_batch.size(), 300u);
  EXPECT_EQ(p[1].partition, 0);
}

TEST(ProduceRequestWriter, EmptyRequestAndTooLongTopicName) {
  const auto empty =
      encode([](WriteBuffer& b) { return ProduceRequestWriter(b, Acks::kLeader, 5).finish(); });
  ProduceRequest req;
  req.timeout_ms = 5;
  EXPECT_EQ(empty, encode([&](WriteBuffer& b) { return encode_produce_request(req, b); }));

  std::array<std::byte, 64> scratch;
  WriteBuffer buf(scratch);
  ProduceRequestWriter w(buf, Acks::kLeader, 0);
  w.begin_topic(std::string(70'000, 't'));
  w.begin_partition(0);
  w.end_partition();
  EXPECT_EQ(w.finish().code(), ErrorCode::kInvalidArgument);
}

// Every decoder on random and truncated bodies: an error or a value, never a
// crash or a read out of bounds (run under ASan in the sanitizer build).
TEST(MessagesCodec, RandomBodiesNeverCrashTheDecoders) {
  std::mt19937 rng(12345);
  std::vector<std::byte> body;
  size_t decoded = 0;
  for (int round = 0; round < 20000; ++round) {
    body.resize(rng() % 64);
    for (auto& b : body) {
      // Mostly small values, so counts and lengths are often plausible.
      b = static_cast<std::byte>(rng() % 4 == 0 ? rng() : rng() % 3);
    }
    decoded += decode_produce_request(body).ok();
    decoded += decode_produce_response(body).ok();
    decoded += decode_fetch_request(body).ok();
    decoded += decode_fetch_response(body).ok();
    decoded += decode_metadata_request(body).ok();
    decoded += decode_metadata_response(body).ok();
    decoded += decode_create_topics_request(body).ok();
    decoded += decode_delete_topics_request(body).ok();
    decoded += decode_commit_offsets_request(body).ok();
    decoded += decode_commit_offsets_response(body).ok();
    decoded += decode_fetch_offsets_request(body).ok();
    decoded += decode_fetch_offsets_response(body).ok();
    // Whatever decoded iterates without surprises.
    if (auto r = decode_produce_request(body); r.ok()) {
      for (const auto& t : r->topics) {
        for (const auto& p : t.partitions) EXPECT_LE(p.record_batch.size(), body.size());
      }
    }
  }
  EXPECT_GT(decoded, 0u);  // the generator does reach valid bodies
}

TEST(WireWriter, StringTooLongIsAnError) {
  std::array<std::byte, 16> scratch;
  WriteBuffer buf(scratch);
  const std::string huge(70'000, 'x');
  EXPECT_EQ(encode_delete_topics_request({huge}, buf).code(), ErrorCode::kInvalidArgument);
  buf.release();
}

}  // namespace
}  // namespace spillway::messages
