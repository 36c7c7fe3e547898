// Compressed RecordBatch v2 validation for every Kafka codec: batches built
// with the codec libraries the way Kafka clients build them (see
// compression_testing.h) pass with their records intact, and each kind of
// bad block - wrong record count, truncated, garbage, trailing bytes, a bomb
// - is rejected with a clear error, without decompressing past the bound.
// The end-to-end check with a real client belongs to the librdkafka interop
// test against the Kafka port.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "compression_testing.h"
#include "spillway/common/record_batch.h"

namespace spillway::batch {
namespace {

using spillway::testing::assemble_batch;
using spillway::testing::Bytes;
using spillway::testing::encode_record;
using spillway::testing::put_varint;
using spillway::testing::str;
using spillway::testing::TestRecord;

constexpr std::size_t kLimit = 1 << 20;

// One way to compress a records block: its codec and a compressor.
struct Codec {
  const char* name;
  Compression compression;
  std::function<Bytes(const Bytes&)> compress;
};

std::vector<Codec> codecs() {
  namespace t = spillway::testing;
  return {
      {"gzip", Compression::kGzip, [](const Bytes& b) { return t::gzip_compress(b); }},
      {"snappy_raw", Compression::kSnappy, t::snappy_raw_compress},
      {"snappy_java", Compression::kSnappy,
       [](const Bytes& b) { return t::snappy_java_compress(b); }},
      {"lz4", Compression::kLz4, [](const Bytes& b) { return t::lz4_compress(b); }},
      {"zstd", Compression::kZstd, t::zstd_compress},
  };
}

class CompressedBatch : public ::testing::TestWithParam<Codec> {
 protected:
  Bytes compress(const Bytes& b) const { return GetParam().compress(b); }
  int16_t attributes() const { return static_cast<int16_t>(GetParam().compression); }
  Bytes batch_of(const Bytes& block, int32_t count) const {
    return assemble_batch(block, count, attributes());
  }
};

std::string codec_name(const ::testing::TestParamInfo<Codec>& info) {
  return info.param.name;
}

// `n` records with values long enough to span several snappy-java chunks
// and lz4 blocks when n is large, plus headers and null keys.
std::vector<TestRecord> records(int n, std::size_t value_size = 100) {
  std::vector<TestRecord> out;
  for (int i = 0; i < n; ++i) {
    TestRecord r;
    if (i % 3 != 2) r.key = "key-" + std::to_string(i);
    r.value = std::string(value_size, static_cast<char>('a' + i % 26)) + std::to_string(i);
    r.timestamp_delta = i;
    if (i % 2 == 0) r.headers = {{"trace", "t" + std::to_string(i)}};
    out.push_back(std::move(r));
  }
  return out;
}

Bytes encode_block(const std::vector<TestRecord>& rs) {
  Bytes block;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    Bytes r = encode_record(rs[i], static_cast<int32_t>(i));
    block.insert(block.end(), r.begin(), r.end());
  }
  return block;
}

void expect_corrupt(const Bytes& batch, const std::string& what, const char* needle = nullptr) {
  Status st = validate(batch, kMaxBatchBytes);
  EXPECT_EQ(st.code(), ErrorCode::kCorruptMessage) << what << ": " << st.to_string();
  if (needle) {
    EXPECT_NE(st.message().find(needle), std::string_view::npos) << what << ": " << st.to_string();
  }
}

TEST_P(CompressedBatch, ValidBatchesPassAndReadBack) {
  for (int n : {1, 4, 3000}) {
    const std::vector<TestRecord> rs = records(n);
    const Bytes plain = encode_block(rs);
    const Bytes batch = batch_of(compress(plain), n);
    ASSERT_TRUE(validate(batch, kMaxBatchBytes).ok())
        << n << " records: " << validate(batch, kMaxBatchBytes).to_string();
    EXPECT_TRUE(validate_produced(batch, kMaxBatchBytes).ok());
    auto h = parse_header(batch);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->compression(), GetParam().compression);
    EXPECT_EQ(h->record_count, n);

    Bytes out(plain.size());
    auto block = decompress_records(batch, out);
    ASSERT_TRUE(block.ok()) << block.status().to_string();
    ASSERT_EQ(block->size(), plain.size());
    RecordReader reader(*block, h->record_count);
    RecordView v;
    int seen = 0;
    while (reader.next(&v)) {
      const TestRecord& want = rs[static_cast<std::size_t>(seen)];
      EXPECT_EQ(v.key_is_null, !want.key.has_value());
      if (want.key) {
        EXPECT_EQ(str(v.key), *want.key);
      }
      EXPECT_EQ(str(v.value), *want.value);
      EXPECT_EQ(v.header_count, static_cast<int32_t>(want.headers.size()));
      ++seen;
    }
    EXPECT_TRUE(reader.status().ok()) << reader.status().to_string();
    EXPECT_EQ(seen, n);

    // A buffer one byte short is reported, not overrun.
    Bytes small(plain.size() - 1);
    EXPECT_EQ(decompress_records(batch, small).status().code(), ErrorCode::kBatchTooLarge);
  }
}

TEST_P(CompressedBatch, EmptyRecordsBlockOfACompressedEmptyBatch) {
  // Zero records compressed is a valid (if odd) batch; producers may not send it.
  const Bytes batch = batch_of(compress({}), 0);
  EXPECT_TRUE(validate(batch, kMaxBatchBytes).ok()) << validate(batch, kMaxBatchBytes).to_string();
  EXPECT_EQ(validate_produced(batch, kMaxBatchBytes).code(), ErrorCode::kInvalidArgument);
}

TEST_P(CompressedBatch, WrongRecordCountIsRejected) {
  const Bytes block = compress(encode_block(records(4)));
  expect_corrupt(batch_of(block, 3), "one record fewer", "after the last record");
  expect_corrupt(batch_of(block, 5), "one record more", "record 4");
  expect_corrupt(batch_of(block, 1), "one record");
  // A count no block could hold fails before decompressing anything.
  Bytes huge = batch_of(block, 4);
  store_be<int32_t>(&huge[kRecordCountPos], 0x7ffffff0);
  store_be<int32_t>(&huge[kLastOffsetDeltaPos], 0x7fffffef);
  spillway::testing::fix_crc(huge);
  expect_corrupt(huge, "huge count", "limit");
}

TEST_P(CompressedBatch, TruncatedBlockIsRejected) {
  const Bytes block = compress(encode_block(records(200)));
  // The error names the codec: "gzip records block is truncated", ...
  const std::string family = std::string(GetParam().name).substr(0, 4);
  for (std::size_t cut : {std::size_t{1}, std::size_t{4}, block.size() / 2, block.size() - 1}) {
    Bytes shorter(block.begin(), block.end() - static_cast<std::ptrdiff_t>(cut));
    expect_corrupt(batch_of(shorter, 200), "cut " + std::to_string(cut), family.c_str());
  }
  // Every prefix of a small block.
  const Bytes one = compress(encode_block(records(1)));
  for (std::size_t len = 0; len < one.size(); ++len) {
    expect_corrupt(batch_of(Bytes(one.begin(), one.begin() + static_cast<std::ptrdiff_t>(len)), 1),
                   "prefix of " + std::to_string(len));
  }
}

TEST_P(CompressedBatch, GarbageIsRejected) {
  std::mt19937 rng(13);
  for (std::size_t size : {1, 7, 16, 100, 5000}) {
    Bytes junk(size);
    for (auto& b : junk) b = static_cast<std::byte>(rng());
    expect_corrupt(batch_of(junk, 1), "random " + std::to_string(size));
  }
  expect_corrupt(batch_of(spillway::testing::bytes_of("this is not compressed at all"), 1), "text");
  // Uncompressed records under a compressed codec.
  expect_corrupt(batch_of(encode_block(records(2)), 2), "plain records");
  // Flipped bytes inside a valid block (CRC fixed up): either the codec or
  // the record grammar must object; nothing may crash.
  const Bytes good = compress(encode_block(records(50)));
  for (std::size_t at = 0; at < good.size(); at += 1 + good.size() / 40) {
    Bytes bad = good;
    bad[at] ^= std::byte{0x5a};
    const Bytes batch = batch_of(bad, 50);
    (void)validate(batch, kMaxBatchBytes);
  }
}

TEST_P(CompressedBatch, TrailingBytesAreRejected) {
  Bytes block = compress(encode_block(records(3)));
  Bytes with_junk = block;
  with_junk.push_back(std::byte{0});
  expect_corrupt(batch_of(with_junk, 3), "one trailing zero");
  // Records after the declared ones, inside the compressed data.
  expect_corrupt(batch_of(compress(encode_block(records(4))), 3), "extra record",
                 "after the last record");
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompressedBatch, ::testing::ValuesIn(codecs()), codec_name);

// Several gzip members / lz4 frames / zstd frames back to back form one
// block, as Java's GZIPInputStream reads them.
TEST(CompressedBatch, ConcatenatedFramesAreOneBlock) {
  namespace t = spillway::testing;
  const Bytes first = encode_block(records(2));
  Bytes second;
  for (int i = 2; i < 5; ++i) {
    Bytes r = encode_record(records(5)[static_cast<std::size_t>(i)], i);
    second.insert(second.end(), r.begin(), r.end());
  }
  auto join = [](Bytes a, const Bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  for (auto [c, compress] : std::vector<std::pair<Compression, std::function<Bytes(const Bytes&)>>>{
           {Compression::kGzip, [](const Bytes& b) { return t::gzip_compress(b); }},
           {Compression::kLz4, [](const Bytes& b) { return t::lz4_compress(b); }},
           {Compression::kZstd, t::zstd_compress}}) {
    const Bytes batch =
        assemble_batch(join(compress(first), compress(second)), 5, static_cast<int16_t>(c));
    EXPECT_TRUE(validate(batch, kLimit).ok()) << static_cast<int>(c);
  }
}

TEST(CompressedBatch, Lz4FrameOptionsOtherClientsUse) {
  // 4 MiB linked blocks with block and content checksums (lz4 CLI, pierrec/lz4).
  LZ4F_preferences_t p{};
  p.frameInfo.blockSizeID = LZ4F_max4MB;
  p.frameInfo.blockMode = LZ4F_blockLinked;
  p.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  p.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
  const Bytes plain = encode_block(records(2000));
  p.frameInfo.contentSize = plain.size();
  Bytes block = spillway::testing::lz4_compress(plain, p);
  EXPECT_TRUE(validate(assemble_batch(block, 2000, 3), kMaxBatchBytes).ok());
  // A broken content checksum is caught (the last four bytes).
  block[block.size() - 2] ^= std::byte{1};
  expect_corrupt(assemble_batch(block, 2000, 3), "content checksum", "lz4");
}

TEST(CompressedBatch, SnappyJavaFramingFaults) {
  namespace t = spillway::testing;
  const Bytes plain = encode_block(records(3));
  // Header only, no chunk: no records.
  EXPECT_TRUE(validate(assemble_batch(t::snappy_java_header(), 0, 2), kLimit).ok());
  expect_corrupt(assemble_batch(t::snappy_java_header(), 1, 2), "header only, one record");
  // Header cut short (the magic is there, the versions are not).
  Bytes cut = t::snappy_java_header();
  cut.resize(12);
  expect_corrupt(assemble_batch(cut, 0, 2), "short header", "snappy-java header");
  // A chunk length past the end, zero, negative, or cut.
  Bytes framed = t::snappy_java_compress(plain);
  Bytes longer = framed;
  store_be<int32_t>(&longer[16], static_cast<int32_t>(framed.size()));
  expect_corrupt(assemble_batch(longer, 3, 2), "chunk past end", "truncated");
  Bytes zero = t::snappy_java_header();
  t::put_be32(zero, 0);
  expect_corrupt(assemble_batch(zero, 0, 2), "zero chunk", "not positive");
  Bytes negative = t::snappy_java_header();
  t::put_be32(negative, 0x80000000u);
  expect_corrupt(assemble_batch(negative, 0, 2), "negative chunk", "not positive");
  Bytes half_length = t::snappy_java_header();
  half_length.push_back(std::byte{0});
  expect_corrupt(assemble_batch(half_length, 0, 2), "cut length", "chunk length");
  // Records split across many 16-byte chunks read back whole.
  const Bytes tiny_chunks = t::snappy_java_compress(plain, 16);
  EXPECT_TRUE(validate(assemble_batch(tiny_chunks, 3, 2), kLimit).ok());
}

TEST(CompressedBatch, UnknownCodecsGetAClearError) {
  const Bytes plain = encode_block(records(1));
  for (int16_t codec = 5; codec <= 7; ++codec) {
    const Bytes batch = assemble_batch(plain, 1, codec);
    Status st = validate(batch, kLimit);
    EXPECT_EQ(st.code(), ErrorCode::kCorruptMessage);
    EXPECT_NE(st.message().find("compression codec " + std::to_string(codec)),
              std::string_view::npos)
        << st.to_string();
    Bytes out(1024);
    EXPECT_EQ(decompress_records(batch, out).status().code(), ErrorCode::kCorruptMessage);
  }
}

TEST(CompressedBatch, DecompressRecordsOfAnUncompressedBatchIsTheBlock) {
  const Bytes batch = assemble_batch(encode_block(records(2)), 2, 0);
  Bytes out(1);
  auto block = decompress_records(batch, out);
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(block->data(), batch.data() + kHeaderSize);
}

// --- Bombs: a small block that expands past kMaxRecordsBytes. ---

// One record whose value is `value_size` zero bytes: the record's prefix,
// and the suffix after the zeros (the header count).
struct BombRecord {
  Bytes prefix;
  Bytes suffix{std::byte{0}};
};

BombRecord bomb_record(std::size_t value_size) {
  Bytes body;
  body.push_back(std::byte{0});
  put_varint(body, 0);
  put_varint(body, 0);
  put_varint(body, -1);
  put_varint(body, static_cast<int64_t>(value_size));
  BombRecord r;
  put_varint(r.prefix, static_cast<int64_t>(body.size() + value_size + 1));
  r.prefix.insert(r.prefix.end(), body.begin(), body.end());
  return r;
}

constexpr std::size_t kBombValue = 100u << 20;

TEST(CompressedBomb, GzipStopsAtTheLimit) {
  const BombRecord r = bomb_record(kBombValue);
  const Bytes block = spillway::testing::gzip_bomb(r.prefix, kBombValue, r.suffix);
  ASSERT_LT(block.size(), kLimit);
  expect_corrupt(assemble_batch(block, 1, 1), "gzip bomb", "beyond the limit");
}

TEST(CompressedBomb, Lz4StopsAtTheLimit) {
  const BombRecord r = bomb_record(kBombValue);
  const Bytes block = spillway::testing::lz4_bomb(r.prefix, kBombValue, r.suffix);
  ASSERT_LT(block.size(), kLimit);
  expect_corrupt(assemble_batch(block, 1, 3), "lz4 bomb", "beyond the limit");
}

TEST(CompressedBomb, SnappyJavaStopsAtTheLimit) {
  // snappy expands at most ~21x, so this bomb needs a few MiB of chunks.
  const BombRecord r = bomb_record(kBombValue);
  const Bytes block = spillway::testing::snappy_java_bomb(r.prefix, kBombValue, r.suffix);
  ASSERT_LT(block.size(), kMaxBatchBytes - kHeaderSize);
  expect_corrupt(assemble_batch(block, 1, 2), "snappy-java bomb", "beyond the limit");
}

TEST(CompressedBomb, RawSnappyLengthIsCheckedBeforeAnythingIsSized) {
  // A raw block declares its length up front: past the limit, or more than
  // its bytes could ever expand to, it is refused before decompressing.
  Bytes past_limit;  // an unsigned varint length, then filler
  uint64_t len = kMaxRecordsBytes + 1;
  while (len >= 0x80) {
    past_limit.push_back(static_cast<std::byte>((len & 0x7f) | 0x80));
    len >>= 7;
  }
  past_limit.push_back(static_cast<std::byte>(len));
  past_limit.insert(past_limit.end(), 64, std::byte{0});
  expect_corrupt(assemble_batch(past_limit, 1, 2), "raw past limit", "beyond the limit");

  Bytes too_dense = {std::byte{0x80}, std::byte{0x80}, std::byte{0x40}};  // 1 MiB
  too_dense.insert(too_dense.end(), 16, std::byte{0});
  expect_corrupt(assemble_batch(too_dense, 1, 2), "raw claims 1 MiB from 19 bytes",
                 "more bytes than it can hold");
}

}  // namespace
}  // namespace spillway::batch
