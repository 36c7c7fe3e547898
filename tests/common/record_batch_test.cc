// RecordBatch v2: header parsing, validation, the record reader, and a
// corpus of malformed batches that must all be rejected.
#include "spillway/common/record_batch.h"

#include <gtest/gtest.h>

#include "batch_testing.h"

namespace spillway::batch {
namespace {

using spillway::testing::assemble_batch;
using spillway::testing::Bytes;
using spillway::testing::encode_batch;
using spillway::testing::encode_record;
using spillway::testing::fix_crc;
using spillway::testing::put_varint;
using spillway::testing::str;
using spillway::testing::TestRecord;

constexpr std::size_t kLimit = 1 << 20;

std::vector<TestRecord> sample_records() {
  return {
      {"k0", "value zero", 0, {}},
      {std::nullopt, "no key", 5, {{"h1", "v1"}, {"h2", std::nullopt}}},
      {"k2", std::nullopt, 9, {}},
      {"", "", -3, {{"", ""}}},
  };
}

TEST(BatchHeader, ParsesEveryField) {
  Bytes b = encode_batch(sample_records());
  set_base_offset(b, 1234567890123);
  set_partition_leader_epoch(b, 77);
  auto h = parse_header(b);
  ASSERT_TRUE(h.ok()) << h.status().to_string();
  EXPECT_EQ(h->base_offset, 1234567890123);
  EXPECT_EQ(h->partition_leader_epoch, 77);
  EXPECT_EQ(h->magic, 2);
  EXPECT_EQ(h->total_size(), b.size());
  EXPECT_EQ(h->record_count, 4);
  EXPECT_EQ(h->last_offset_delta, 3);
  EXPECT_EQ(h->last_offset(), 1234567890123 + 3);
  EXPECT_EQ(h->base_timestamp, 1000);
  EXPECT_EQ(h->producer_id, -1);
  EXPECT_EQ(h->producer_epoch, -1);
  EXPECT_EQ(h->base_sequence, -1);
  EXPECT_EQ(h->compression(), Compression::kNone);
  // The assigned fields are outside the CRC.
  EXPECT_TRUE(validate(b, kLimit).ok());
}

TEST(BatchHeader, NeedsOnlyTheHeaderBytes) {
  Bytes b = encode_batch(sample_records());
  auto h = parse_header(std::span(b).first(kHeaderSize));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->total_size(), b.size());
  EXPECT_FALSE(parse_header(std::span(b).first(kHeaderSize - 1)).ok());
}

TEST(BatchHeader, RejectsBadMagicAndLengths) {
  Bytes b = encode_batch(sample_records());
  Bytes bad = b;
  bad[kMagicPos] = std::byte{1};
  EXPECT_EQ(parse_header(bad).status().code(), ErrorCode::kCorruptMessage);
  bad = b;
  store_be<int32_t>(&bad[kBatchLengthPos], kMinBatchLength - 1);
  EXPECT_FALSE(parse_header(bad).ok());
  store_be<int32_t>(&bad[kBatchLengthPos], -5);
  EXPECT_FALSE(parse_header(bad).ok());
  store_be<int32_t>(&bad[kBatchLengthPos], static_cast<int32_t>(kMaxBatchBytes));
  EXPECT_FALSE(parse_header(bad).ok());
  store_be<int32_t>(&bad[kBatchLengthPos], static_cast<int32_t>(kMaxBatchBytes - 12));
  EXPECT_TRUE(parse_header(bad).ok());
}

void expect_records_match(std::span<const std::byte> block, int32_t count,
                          const std::vector<TestRecord>& want) {
  RecordReader reader(block, count);
  RecordView r;
  std::size_t i = 0;
  while (reader.next(&r)) {
    ASSERT_LT(i, want.size());
    const TestRecord& w = want[i];
    EXPECT_EQ(r.offset_delta, static_cast<int32_t>(i));
    EXPECT_EQ(r.timestamp_delta, w.timestamp_delta);
    EXPECT_EQ(r.key_is_null, !w.key.has_value());
    if (w.key) {
      EXPECT_EQ(str(r.key), *w.key);
    }
    EXPECT_EQ(r.value_is_null, !w.value.has_value());
    if (w.value) {
      EXPECT_EQ(str(r.value), *w.value);
    }
    ASSERT_EQ(r.header_count, static_cast<int32_t>(w.headers.size()));
    HeaderReader hr(r);
    RecordHeaderView h;
    std::size_t j = 0;
    while (hr.next(&h)) {
      EXPECT_EQ(str(h.key), w.headers[j].key);
      EXPECT_EQ(h.value_is_null, !w.headers[j].value.has_value());
      if (w.headers[j].value) {
        EXPECT_EQ(str(h.value), *w.headers[j].value);
      }
      ++j;
    }
    EXPECT_TRUE(hr.status().ok());
    EXPECT_EQ(j, w.headers.size());
    ++i;
  }
  EXPECT_TRUE(reader.status().ok()) << reader.status().to_string();
  EXPECT_EQ(i, want.size());
}

TEST(RecordBatch, UncompressedRoundTrip) {
  auto recs = sample_records();
  Bytes b = encode_batch(recs);
  ASSERT_TRUE(validate(b, kLimit).ok()) << validate(b, kLimit).to_string();
  expect_records_match(records_block(b), 4, recs);
}

TEST(RecordBatch, ZstdRoundTrip) {
  auto recs = sample_records();
  recs.push_back({"big", std::string(100000, 'x'), 1, {}});  // crosses the window
  Bytes b = encode_batch(recs, /*zstd=*/true);
  auto h = parse_header(b);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->compression(), Compression::kZstd);
  ASSERT_TRUE(validate(b, kLimit).ok()) << validate(b, kLimit).to_string();
  Bytes out(200000);
  auto block = decompress_records(b, out);
  ASSERT_TRUE(block.ok()) << block.status().to_string();
  expect_records_match(*block, 5, recs);
  // Too small an output buffer is an error, not an overflow.
  Bytes small(1000);
  EXPECT_EQ(decompress_records(b, small).status().code(), ErrorCode::kBatchTooLarge);
}

// An empty batch is well formed (a log written by an older broker may hold
// one, and recovery must keep it) but a producer may not send one.
TEST(RecordBatch, EmptyBatchIsWellFormedButNotProducible) {
  for (bool zstd : {false, true}) {
    Bytes b = encode_batch({}, zstd);
    EXPECT_TRUE(validate(b, kLimit).ok()) << validate(b, kLimit).to_string();
    Status st = validate_produced(b, kLimit);
    EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument) << st.to_string();
    EXPECT_NE(st.message().find("no records"), std::string_view::npos) << st.message();
  }
  Bytes one = encode_batch({{"k", "v", 0, {}}});
  EXPECT_TRUE(validate_produced(one, kLimit).ok());
  // Structural errors come first, with validate()'s codes.
  EXPECT_EQ(validate_produced(one, one.size() - 1).code(), ErrorCode::kBatchTooLarge);
  Bytes bad = encode_batch({});
  bad.back() ^= std::byte{1};
  EXPECT_EQ(validate_produced(bad, kLimit).code(), ErrorCode::kCorruptMessage);
}

TEST(RecordBatch, EnforcesCallerLimit) {
  Bytes b = encode_batch(sample_records());
  EXPECT_TRUE(validate(b, b.size()).ok());
  EXPECT_EQ(validate(b, b.size() - 1).code(), ErrorCode::kBatchTooLarge);
}

// ---- malformed corpus ----

void expect_rejected(const Bytes& b, const char* why) {
  Status st = validate(b, kLimit);
  EXPECT_FALSE(st.ok()) << why;
  EXPECT_NE(st.code(), ErrorCode::kOk) << why;
}

TEST(MalformedBatch, TruncatedAtEveryLength) {
  Bytes b = encode_batch(sample_records());
  for (std::size_t n = 0; n < b.size(); ++n) {
    Bytes t(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(validate(t, kLimit).ok()) << "length " << n;
  }
  Bytes z = encode_batch(sample_records(), true);
  for (std::size_t n = kHeaderSize; n < z.size(); ++n) {
    // Truncate the zstd frame but keep the header's length honest.
    Bytes t(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(n));
    store_be<int32_t>(&t[kBatchLengthPos], static_cast<int32_t>(n - 12));
    fix_crc(t);
    EXPECT_FALSE(validate(t, kLimit).ok()) << "zstd length " << n;
  }
}

TEST(MalformedBatch, BadCrcAnywhere) {
  Bytes b = encode_batch(sample_records());
  for (std::size_t i = kAttributesPos; i < b.size(); ++i) {
    Bytes t = b;
    t[i] ^= std::byte{0x01};
    EXPECT_FALSE(validate(t, kLimit).ok()) << "flipped byte " << i;
  }
  Bytes t = b;
  t[kCrcPos] ^= std::byte{0x80};
  EXPECT_EQ(validate(t, kLimit).code(), ErrorCode::kCorruptMessage);
}

TEST(MalformedBatch, LyingCounts) {
  auto recs = sample_records();
  Bytes block;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    Bytes r = encode_record(recs[i], static_cast<int32_t>(i));
    block.insert(block.end(), r.begin(), r.end());
  }
  expect_rejected(assemble_batch(block, 5, 0), "count above the records present");
  expect_rejected(assemble_batch(block, 3, 0), "count below the records present");
  expect_rejected(assemble_batch(block, -1, 0), "negative count");
  expect_rejected(assemble_batch(block, 1 << 30, 0), "huge count");
  Bytes b = assemble_batch(block, 4, 0);
  store_be<int32_t>(&b[kLastOffsetDeltaPos], 7);
  fix_crc(b);
  expect_rejected(b, "last offset delta != count - 1");
  Bytes z = assemble_batch(testing::zstd_compress(block), 1 << 30, 4);
  expect_rejected(z, "huge count, compressed");
  Bytes codec = assemble_batch(block, 4, 1);  // gzip attribute over plain records
  expect_rejected(codec, "unsupported codec");
}

TEST(MalformedBatch, LyingLengths) {
  Bytes good = encode_batch(sample_records());
  // batch_length larger or smaller than the bytes present.
  Bytes t = good;
  store_be<int32_t>(&t[kBatchLengthPos], load_be<int32_t>(&t[kBatchLengthPos]) + 1);
  expect_rejected(t, "batch length too long");
  t = good;
  t.push_back(std::byte{0});
  expect_rejected(t, "extra byte after the batch");

  auto one = [](Bytes record) { return assemble_batch(record, 1, 0); };
  Bytes r;
  // Record length longer than the block.
  r.clear();
  put_varint(r, 100);
  r.insert(r.end(),
           {std::byte{0}, std::byte{0}, std::byte{0}, std::byte{2}, std::byte{2}, std::byte{0}});
  expect_rejected(one(r), "record length past the block");
  // Record length shorter than its fields.
  Bytes rec = encode_record({"key", "value", 0, {}}, 0);
  Bytes shorter = rec;
  shorter[0] = static_cast<std::byte>(static_cast<uint8_t>(shorter[0]) - 2);  // zigzag: -1
  expect_rejected(one(shorter), "record length shorter than its fields");
  // Key length running past the record.
  Bytes body;
  body.push_back(std::byte{0});
  put_varint(body, 0);
  put_varint(body, 0);
  put_varint(body, 50);  // key length 50, but only a few bytes follow
  put_varint(body, -1);
  put_varint(body, 0);
  Bytes framed;
  put_varint(framed, static_cast<int64_t>(body.size()));
  framed.insert(framed.end(), body.begin(), body.end());
  expect_rejected(one(framed), "key length past the record");
  // Key length below -1.
  body[3] = std::byte{0x03};  // zigzag(-2)
  framed.clear();
  put_varint(framed, static_cast<int64_t>(body.size()));
  framed.insert(framed.end(), body.begin(), body.end());
  expect_rejected(one(framed), "key length -2");
  // Header count larger than the record can hold.
  Bytes hc;
  hc.push_back(std::byte{0});
  put_varint(hc, 0);
  put_varint(hc, 0);
  put_varint(hc, -1);
  put_varint(hc, -1);
  put_varint(hc, 1000000);
  framed.clear();
  put_varint(framed, static_cast<int64_t>(hc.size()));
  framed.insert(framed.end(), hc.begin(), hc.end());
  expect_rejected(one(framed), "header count lies");
  // Offset deltas out of sequence.
  Bytes r0 = encode_record({"a", "b", 0, {}}, 0);
  Bytes r2 = encode_record({"a", "b", 0, {}}, 2);
  r0.insert(r0.end(), r2.begin(), r2.end());
  expect_rejected(assemble_batch(r0, 2, 0), "offset delta gap");
}

TEST(MalformedBatch, OverlongVarints) {
  // A record length encoded in 6 bytes (varint32 allows 5).
  Bytes r{std::byte{0x80}, std::byte{0x80}, std::byte{0x80},
          std::byte{0x80}, std::byte{0x80}, std::byte{0x00}};
  r.resize(r.size() + 10, std::byte{0});
  expect_rejected(assemble_batch(r, 1, 0), "6-byte varint");
  // A fifth byte carrying bits beyond 32.
  Bytes r5{std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0x7F}};
  r5.resize(r5.size() + 10, std::byte{0});
  expect_rejected(assemble_batch(r5, 1, 0), "varint overflowing 32 bits");
  // A timestamp delta varlong of 11 bytes.
  Bytes body;
  body.push_back(std::byte{0});
  for (int i = 0; i < 10; ++i) body.push_back(std::byte{0x80});
  body.push_back(std::byte{0});
  put_varint(body, 0);
  put_varint(body, -1);
  put_varint(body, -1);
  put_varint(body, 0);
  Bytes framed;
  put_varint(framed, static_cast<int64_t>(body.size()));
  framed.insert(framed.end(), body.begin(), body.end());
  expect_rejected(assemble_batch(framed, 1, 0), "11-byte varlong");
  // The same bad record inside a zstd block.
  expect_rejected(assemble_batch(testing::zstd_compress(framed), 1, 4), "overlong, compressed");
}

TEST(MalformedBatch, ZstdBomb) {
  // One record whose value claims 100 MB of zeros: compresses to a few KB
  // but decompresses past kMaxRecordsBytes. Validation must stop at the
  // bound instead of inflating it all (or allocating for it).
  const std::size_t value_size = 100u << 20;
  Bytes body;
  body.push_back(std::byte{0});
  put_varint(body, 0);
  put_varint(body, 0);
  put_varint(body, -1);
  put_varint(body, static_cast<int64_t>(value_size));
  Bytes prefix;
  put_varint(prefix, static_cast<int64_t>(body.size() + value_size + 1));
  prefix.insert(prefix.end(), body.begin(), body.end());
  // Stream-compress prefix + zeros without materialising 100 MB.
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  Bytes out(ZSTD_compressBound(1 << 20));
  Bytes frame;
  std::vector<std::byte> zeros(1 << 20, std::byte{0});
  auto feed = [&](const void* src, std::size_t n, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{src, n, 0};
    std::size_t rem;
    do {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      rem = ZSTD_compressStream2(cctx, &o, &in, mode);
      ASSERT_FALSE(ZSTD_isError(rem));
      frame.insert(frame.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(o.pos));
    } while (in.pos < in.size || (mode == ZSTD_e_end && rem != 0));
  };
  feed(prefix.data(), prefix.size(), ZSTD_e_continue);
  for (std::size_t i = 0; i < value_size / zeros.size(); ++i) {
    feed(zeros.data(), zeros.size(), ZSTD_e_continue);
  }
  std::byte header_count{0};
  feed(&header_count, 1, ZSTD_e_end);
  ZSTD_freeCCtx(cctx);
  ASSERT_LT(frame.size(), 1u << 20);
  Bytes bomb = assemble_batch(frame, 1, 4);
  Status st = validate(bomb, kLimit);
  EXPECT_EQ(st.code(), ErrorCode::kCorruptMessage);
  EXPECT_NE(st.message().find("limit"), std::string_view::npos) << st.to_string();
}

TEST(MalformedBatch, GarbageZstdFrame) {
  Bytes junk = testing::bytes_of("this is not a zstd frame at all");
  expect_rejected(assemble_batch(junk, 1, 4), "not zstd");
  expect_rejected(assemble_batch({}, 0, 4), "empty zstd block");
  // Two records' worth of data after the declared one.
  Bytes two = encode_record({"a", "b", 0, {}}, 0);
  Bytes extra = encode_record({"a", "b", 0, {}}, 1);
  two.insert(two.end(), extra.begin(), extra.end());
  expect_rejected(assemble_batch(testing::zstd_compress(two), 1, 4), "trailing records, zstd");
  expect_rejected(assemble_batch(two, 1, 0), "trailing records");
}

TEST(RecordReader, ReportsMalformedInput) {
  Bytes r{std::byte{0x80}, std::byte{0x80}};
  RecordReader reader(r, 1);
  RecordView v;
  EXPECT_FALSE(reader.next(&v));
  EXPECT_FALSE(reader.status().ok());
  Bytes ok = encode_record({"a", "b", 0, {}}, 0);
  ok.push_back(std::byte{0});
  RecordReader trailing(ok, 1);
  EXPECT_TRUE(trailing.next(&v));
  EXPECT_FALSE(trailing.next(&v));
  EXPECT_FALSE(trailing.status().ok());
}

}  // namespace
}  // namespace spillway::batch
