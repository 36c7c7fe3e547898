// BatchBuilder: round trips with and without zstd, byte-for-byte agreement
// with the independent test encoder, spills, and failure rewind.
#include "spillway/common/batch_builder.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "batch_testing.h"

namespace spillway::batch {
namespace {

using spillway::testing::Bytes;
using spillway::testing::str;
using spillway::testing::TestRecord;

std::span<const std::byte> sv(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::vector<TestRecord> records(std::size_t big_value = 0) {
  std::vector<TestRecord> r = {
      {"k0", "value zero", 0, {}},
      {std::nullopt, "no key", 5, {{"h1", "v1"}, {"h2", std::nullopt}}},
      {"k2", std::nullopt, 9, {}},
      {"", "", -3, {{"", ""}}},
  };
  if (big_value) {
    std::string v(big_value, 'q');
    for (std::size_t i = 0; i < v.size(); i += 7) v[i] = static_cast<char>('a' + i % 26);
    r.push_back({"big", v, 2, {{"trace", std::string(300, 't')}}});
  }
  return r;
}

// Appends `recs` with timestamps 1000 + timestamp_delta.
Status build(BatchBuilder& b, WriteBuffer& wb, const std::vector<TestRecord>& recs,
             const BuilderOptions& o) {
  SPILLWAY_RETURN_IF_ERROR(b.start(wb, o));
  for (const TestRecord& t : recs) {
    std::vector<RecordHeaderInput> hs;
    for (const auto& h : t.headers) {
      hs.push_back(
          {sv(h.key), h.value ? sv(*h.value) : std::span<const std::byte>(), !h.value.has_value()});
    }
    RecordInput in;
    in.timestamp = 1000 + t.timestamp_delta;
    in.key_is_null = !t.key;
    if (t.key) in.key = sv(*t.key);
    in.value_is_null = !t.value;
    if (t.value) in.value = sv(*t.value);
    in.headers = hs;
    SPILLWAY_RETURN_IF_ERROR(b.append(in));
  }
  return Status::Ok();
}

void expect_records(std::span<const std::byte> block, int32_t count,
                    const std::vector<TestRecord>& want) {
  RecordReader reader(block, count);
  RecordView r;
  std::size_t i = 0;
  while (reader.next(&r)) {
    ASSERT_LT(i, want.size());
    EXPECT_EQ(r.timestamp_delta, want[i].timestamp_delta);
    EXPECT_EQ(r.key_is_null, !want[i].key);
    if (want[i].key) {
      EXPECT_EQ(str(r.key), *want[i].key);
    }
    EXPECT_EQ(r.value_is_null, !want[i].value);
    if (want[i].value) {
      EXPECT_EQ(str(r.value), *want[i].value);
    }
    EXPECT_EQ(r.header_count, static_cast<int32_t>(want[i].headers.size()));
    ++i;
  }
  EXPECT_TRUE(reader.status().ok()) << reader.status().to_string();
  EXPECT_EQ(i, want.size());
}

TEST(BatchBuilder, MatchesTheReferenceEncoderByteForByte) {
  BufferPool pool;
  std::array<std::byte, 64> scratch;  // the header alone spills
  WriteBuffer wb(scratch, pool);
  BatchBuilder b;
  BuilderOptions o;
  o.base_timestamp = 1000;
  auto recs = records();
  ASSERT_TRUE(build(b, wb, recs, o).ok());
  auto size = b.finish();
  ASSERT_TRUE(size.ok()) << size.status().to_string();
  Bytes got(wb.bytes_written());
  wb.copy_to(got);
  Bytes want = testing::encode_batch(recs);
  store_be<int64_t>(&want[kMaxTimestampPos], 1009);
  testing::fix_crc(want);
  EXPECT_EQ(got, want);
  EXPECT_EQ(*size, want.size());
}

class BatchRoundTrip : public ::testing::TestWithParam<std::tuple<bool, std::size_t, std::size_t>> {
};

TEST_P(BatchRoundTrip, BuildValidateRead) {
  auto [zstd, scratch_size, big] = GetParam();
  BufferPool pool;
  std::vector<std::byte> scratch(scratch_size);
  WriteBuffer wb(scratch, pool);
  ASSERT_TRUE(wb.write_be<uint32_t>(0xDEADBEEF).ok());  // bytes before the batch stay put
  BatchBuilder b;
  BuilderOptions o;
  o.compression = zstd ? Compression::kZstd : Compression::kNone;
  o.producer_id = 77;
  o.producer_epoch = 3;
  o.base_sequence = 10;
  auto recs = records(big);
  ASSERT_TRUE(build(b, wb, recs, o).ok());
  auto size = b.finish();
  ASSERT_TRUE(size.ok());
  Bytes all(wb.bytes_written());
  wb.copy_to(all);
  ASSERT_EQ(all.size(), 4 + *size);
  EXPECT_EQ(load_be<uint32_t>(all.data()), 0xDEADBEEFu);
  std::span<const std::byte> batch = std::span(all).subspan(4);
  Status st = validate(batch, 16 << 20);
  ASSERT_TRUE(st.ok()) << st.to_string();
  auto h = parse_header(batch);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->record_count, static_cast<int32_t>(recs.size()));
  EXPECT_EQ(h->base_timestamp, 1000);
  EXPECT_EQ(h->max_timestamp, 1009);
  EXPECT_EQ(h->producer_id, 77);
  EXPECT_EQ(h->producer_epoch, 3);
  EXPECT_EQ(h->base_sequence, 10);
  EXPECT_EQ(h->compression(), o.compression);
  if (zstd) {
    Bytes out(big + 4096);
    auto block = decompress_records(batch, out);
    ASSERT_TRUE(block.ok()) << block.status().to_string();
    expect_records(*block, h->record_count, recs);
    if (big) {
      EXPECT_LT(*size, big / 2);  // it did compress
    }
  } else {
    expect_records(records_block(batch), h->record_count, recs);
  }
}

INSTANTIATE_TEST_SUITE_P(All, BatchRoundTrip,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(0, 100, 4096),
                                            ::testing::Values(0, 3000, 300000)));

TEST(BatchBuilder, EmptyBatch) {
  BufferPool pool;
  std::array<std::byte, 128> scratch;
  for (bool zstd : {false, true}) {
    WriteBuffer wb(scratch, pool);
    BatchBuilder b;
    BuilderOptions o;
    o.compression = zstd ? Compression::kZstd : Compression::kNone;
    ASSERT_TRUE(b.start(wb, o).ok());
    ASSERT_TRUE(b.finish().ok());
    Bytes got(wb.bytes_written());
    wb.copy_to(got);
    EXPECT_TRUE(validate(got, 1 << 20).ok()) << validate(got, 1 << 20).to_string();
  }
}

TEST(BatchBuilder, FailureRewindsTheBuffer) {
  BufferPool::Options po;
  po.max_outstanding_bytes = WriteBuffer::kTableBytes + 4096;  // one small segment
  BufferPool pool(po);
  std::array<std::byte, 128> scratch;
  WriteBuffer wb(scratch, pool);
  ASSERT_TRUE(wb.write_be<uint16_t>(0x1234).ok());
  for (bool zstd : {false, true}) {
    BatchBuilder b;
    BuilderOptions o;
    o.compression = zstd ? Compression::kZstd : Compression::kNone;
    ASSERT_TRUE(b.start(wb, o).ok());
    std::string big(100000, 'x');  // incompressible, so zstd output spills too
    std::mt19937 rng(1);
    for (char& c : big) c = static_cast<char>(rng());
    RecordInput in;
    in.value = sv(big);
    Status st = b.append(in);
    if (st.ok()) {
      auto done = b.finish();
      st = done.ok() ? Status::Ok() : done.status();
    }
    EXPECT_EQ(st.code(), ErrorCode::kResourceExhausted);
    EXPECT_EQ(wb.bytes_written(), 2u);
    EXPECT_EQ(pool.outstanding_bytes(), 0u);
    EXPECT_EQ(b.append(in).code(), ErrorCode::kInvalidArgument);  // must start() again
  }
}

TEST(BatchBuilder, StopsAtTheFormatLimit) {
  std::array<std::byte, 128> scratch;
  WriteBuffer wb(scratch);
  BatchBuilder b;
  ASSERT_TRUE(b.start(wb, {}).ok());
  std::vector<std::byte> big(kMaxBatchBytes, std::byte{1});
  RecordInput in;
  in.value = big;
  EXPECT_EQ(b.append(in).code(), ErrorCode::kBatchTooLarge);
  EXPECT_EQ(wb.bytes_written(), 0u);
  EXPECT_FALSE(wb.spilled());
}

TEST(BatchBuilder, RejectsUnsupportedCodecs) {
  std::array<std::byte, 128> scratch;
  WriteBuffer wb(scratch);
  BatchBuilder b;
  BuilderOptions o;
  o.compression = Compression::kGzip;
  EXPECT_EQ(b.start(wb, o).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(wb.bytes_written(), 0u);
}

}  // namespace
}  // namespace spillway::batch
