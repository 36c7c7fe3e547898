// Proves the steady state allocates nothing: operator new is replaced in
// this binary (tests/support/alloc_counter) and every loop below runs 100k
// iterations after a short warm-up with zero allocations expected.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <string>
#include <vector>

#include "alloc_counter.h"
#include "compression_testing.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/gather_writer.h"
#include "spillway/common/key_partitioner.h"
#include "spillway/common/record_batch.h"
#include "spillway/common/wire/codec.h"
#include "spillway/common/write_buffer.h"

namespace spillway {
namespace {

constexpr int kIterations = 100000;
constexpr int kWarmup = 100;

using testing::AllocationScope;

// Runs `body` kWarmup times, then kIterations times under a counter;
// returns the allocations counted. `body` returns false on a functional
// failure, which fails the test too.
template <typename Body>
uint64_t count_steady_state(Body&& body) {
  bool ok = true;
  for (int i = 0; i < kWarmup; ++i) ok &= body(i);
  AllocationScope scope;
  for (int i = 0; i < kIterations; ++i) ok &= body(i);
  const uint64_t n = scope.thread_allocations();
  EXPECT_TRUE(ok);
  return n;
}

TEST(ZeroAllocation, CounterSeesAllocations) {
  // Guards the other tests: the replacement operator new is really in use.
  AllocationScope scope;
  auto* p = new std::string(100, 'x');
  delete p;
  EXPECT_GE(scope.thread_allocations(), 1u);
}

class WriteCopyRelease : public ::testing::TestWithParam<std::size_t> {};

TEST_P(WriteCopyRelease, AllocatesNothing) {
  const std::size_t size = GetParam();
  std::vector<std::byte> message(size, std::byte{0x42}), out(size);
  std::array<std::byte, 1024> scratch;
  EXPECT_EQ(count_steady_state([&](int) {
              WriteBuffer wb(scratch);
              bool ok = wb.write(message).ok();
              ok &= wb.copy_to(out) == size;
              wb.release();
              return ok;
            }),
            0u);
}

INSTANTIATE_TEST_SUITE_P(Sizes, WriteCopyRelease, ::testing::Values(64, 2048, 200 * 1024));

class PartitionKeys : public ::testing::TestWithParam<std::size_t> {};

TEST_P(PartitionKeys, AllocatesNothing) {
  const std::size_t size = GetParam();
  std::vector<std::byte> key(size);
  for (std::size_t i = 0; i < size; ++i) key[i] = static_cast<std::byte>(i * 13);
  const std::string topic = "topic-a/";
  const std::span<const std::byte> prefix(reinterpret_cast<const std::byte*>(topic.data()),
                                          topic.size());
  KeyPartitioner kp;
  int32_t sink = 0;
  EXPECT_EQ(count_steady_state([&](int i) {
              key[0] = static_cast<std::byte>(i);
              sink += KeyPartitioner::partition(key, 64);
              sink += KeyPartitioner::partition_prefixed(prefix, key, 64);
              // Staged through the stack (<= 256 bytes) or the pool (above).
              auto p = kp.partition_staged(
                  key.size(),
                  [&](std::span<std::byte> out) {
                    for (std::size_t j = 0; j < key.size(); ++j) out[j] = key[j] | std::byte{0x20};
                  },
                  64);
              if (!p.ok()) return false;
              sink += *p;
              return true;
            }),
            0u);
  EXPECT_GE(sink, 0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, PartitionKeys, ::testing::Values(64, 128, 256, 1024));

class BuildAndParse : public ::testing::TestWithParam<batch::Compression> {};

TEST_P(BuildAndParse, AllocatesNothing) {
  std::vector<std::byte> value(300, std::byte{'v'}), key(16, std::byte{'k'}), out(64 * 1024);
  std::vector<std::byte> decompressed(64 * 1024);
  const batch::RecordHeaderInput headers[] = {{key, value, false}};
  std::array<std::byte, 1024> scratch;
  batch::BatchBuilder builder;
  batch::BuilderOptions options;
  options.compression = GetParam();
  EXPECT_EQ(count_steady_state([&](int i) {
              WriteBuffer wb(scratch);
              bool ok = builder.start(wb, options).ok();
              for (int r = 0; r < 10 && ok; ++r) {
                batch::RecordInput in;
                in.timestamp = 1000 + r;
                in.key = key;
                in.value = value;
                in.headers = headers;
                ok = builder.append(in).ok();
              }
              auto size = builder.finish();
              if (!ok || !size.ok()) return false;
              const std::size_t n = wb.copy_to(out);
              std::span<const std::byte> b(out.data(), n);
              batch::set_base_offset(out, i);
              if (!batch::validate(b, 1 << 20).ok()) return false;
              auto h = batch::parse_header(b);
              if (!h.ok()) return false;
              std::span<const std::byte> block = batch::records_block(b);
              if (h->compression() == batch::Compression::kZstd) {
                auto d = batch::decompress_records(b, decompressed);
                if (!d.ok()) return false;
                block = *d;
              }
              batch::RecordReader reader(block, h->record_count);
              batch::RecordView rv;
              int seen = 0;
              while (reader.next(&rv)) {
                batch::HeaderReader hr(rv);
                batch::RecordHeaderView hv;
                while (hr.next(&hv)) {
                }
                ++seen;
              }
              return reader.status().ok() && seen == 10;
            }),
            0u);
}

INSTANTIATE_TEST_SUITE_P(Codecs, BuildAndParse,
                         ::testing::Values(batch::Compression::kNone, batch::Compression::kZstd));

// Validating and decompressing batches compressed by Kafka clients, with
// every codec: the per-thread codec contexts (zlib's memory comes through
// operator new, so it is counted here) and the snappy scratch buffer are
// set up during the warm-up and reused after it.
struct ClientCodec {
  const char* name;
  int16_t attributes;
  testing::Bytes (*compress)(const testing::Bytes&);
};

constexpr int kCodecIterations = 2000;

class ValidateCompressed : public ::testing::TestWithParam<ClientCodec> {};

testing::Bytes client_batch(const ClientCodec& c, int records) {
  testing::Bytes block;
  for (int i = 0; i < records; ++i) {
    testing::TestRecord r{"key-" + std::to_string(i), std::string(200, 'v'), i, {{"h", "v"}}};
    testing::Bytes e = testing::encode_record(r, i);
    block.insert(block.end(), e.begin(), e.end());
  }
  return testing::assemble_batch(c.compress(block), records, c.attributes);
}

TEST_P(ValidateCompressed, AllocatesNothing) {
  // 300 records: ~70 KB decompressed, several lz4 blocks and snappy-java chunks.
  const testing::Bytes batch = client_batch(GetParam(), 300);
  std::vector<std::byte> out(128 * 1024);
  auto body = [&] {
    if (!batch::validate(batch, 1 << 20).ok()) return false;
    auto d = batch::decompress_records(batch, out);
    return d.ok() && d->size() > 60000;
  };
  // Fewer rounds than count_steady_state: each one inflates ~140 KB.
  bool ok = true;
  for (int i = 0; i < kWarmup; ++i) ok &= body();
  AllocationScope scope;
  for (int i = 0; i < kCodecIterations; ++i) ok &= body();
  EXPECT_TRUE(ok);
  EXPECT_EQ(scope.thread_allocations(), 0u);
}

TEST_P(ValidateCompressed, RejectionsAllocateOnlyTheirMessage) {
  // The last three compressed bytes cut off: every codec notices.
  testing::Bytes batch = client_batch(GetParam(), 20);
  batch.resize(batch.size() - 3);
  store_be<int32_t>(&batch[batch::kBatchLengthPos],
                    static_cast<int32_t>(batch.size() - batch::kLengthPrefixSize));
  testing::fix_crc(batch);
  bool ok = true;
  for (int i = 0; i < kWarmup; ++i) ok &= !batch::validate(batch, 1 << 20).ok();
  AllocationScope scope;
  for (int i = 0; i < kCodecIterations; ++i) ok &= !batch::validate(batch, 1 << 20).ok();
  EXPECT_TRUE(ok);
  // A Status and its message per rejection; no buffer, no context.
  EXPECT_LT(scope.thread_bytes() / kCodecIterations, 256u);
}

const ClientCodec kClientCodecs[] = {
    {"gzip", 1, [](const testing::Bytes& b) { return testing::gzip_compress(b); }},
    {"snappy_raw", 2, testing::snappy_raw_compress},
    {"snappy_java", 2, [](const testing::Bytes& b) { return testing::snappy_java_compress(b); }},
    {"lz4", 3, [](const testing::Bytes& b) { return testing::lz4_compress(b); }},
    {"zstd", 4, testing::zstd_compress},
};

INSTANTIATE_TEST_SUITE_P(Codecs, ValidateCompressed, ::testing::ValuesIn(kClientCodecs),
                         [](const auto& info) { return std::string(info.param.name); });

// A bomb is refused having allocated no more than the codec's fixed
// context: nothing in proportion to what the block would expand to.
TEST(BoundedDecompression, BombsAllocateLittle) {
  testing::Bytes prefix;
  testing::put_varint(prefix, (100 << 20) + 20);
  prefix.push_back(std::byte{0});
  for (int64_t v : {0, 0, -1, 100 << 20}) testing::put_varint(prefix, v);
  const testing::Bytes suffix{std::byte{0}};
  const testing::Bytes bombs[] = {
      testing::assemble_batch(testing::gzip_bomb(prefix, 100u << 20, suffix), 1, 1),
      testing::assemble_batch(testing::snappy_java_bomb(prefix, 100u << 20, suffix), 1, 2),
  };
  for (const testing::Bytes& bomb : bombs) {
    AllocationScope scope;
    Status st = batch::validate(bomb, batch::kMaxBatchBytes);
    EXPECT_NE(st.message().find("beyond the limit"), std::string_view::npos) << st.to_string();
    // zlib's state and window, or one 1 MiB snappy chunk; never 64 MiB.
    EXPECT_LT(scope.thread_bytes(), 2u << 20);
  }
}

TEST(ZeroAllocation, GatherFlushBothBackends) {
  std::vector<GatherBackend> backends{GatherBackend::kWritev};
  if (io_uring_supported()) backends.push_back(GatherBackend::kIoUring);
  std::vector<std::byte> message(20000, std::byte{1});
  std::array<std::byte, 1024> scratch;
  const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (GatherBackend be : backends) {
    GatherWriter w(be);
    EXPECT_EQ(count_steady_state([&](int) {
                WriteBuffer wb(scratch);
                bool ok = wb.write(message).ok();
                ok &= w.write_all(fd, wb.segments()).ok();
                wb.release();
                return ok;
              }),
              0u)
        << gather_backend_name(be);
  }
  ::close(fd);
}

// A message described for the wire codec, with nested arrays, strings and
// records in a flexible version.
struct CodecPartition {
  int32_t index = 0;
  std::optional<std::string_view> note;
  wire::Records records;
  static constexpr auto fields() {
    return std::tuple{
        wire::Field<&CodecPartition::index>{"index"},
        wire::Field<&CodecPartition::note>{"note", wire::kAllVersions, wire::kAllVersions},
        wire::Field<&CodecPartition::records>{"records"}};
  }
};
struct CodecTopic {
  std::string_view name;
  wire::Array<CodecPartition> partitions;
  static constexpr auto fields() {
    return std::tuple{wire::Field<&CodecTopic::name>{"name"},
                      wire::Field<&CodecTopic::partitions>{"partitions"}};
  }
};
struct CodecRequest {
  int32_t timeout_ms = 0;
  wire::Array<CodecTopic> topics;
  static constexpr auto fields() {
    return std::tuple{wire::Field<&CodecRequest::timeout_ms>{"timeout_ms"},
                      wire::Field<&CodecRequest::topics>{"topics"}};
  }
};

TEST(ZeroAllocation, WireCodecDecodeIterateEncode) {
  const std::array<std::byte, 100> payload{};
  std::array<CodecPartition, 8> partitions;
  for (int i = 0; i < 8; ++i) {
    partitions[static_cast<size_t>(i)] = {
        i, i % 2 ? std::optional<std::string_view>("odd") : std::nullopt,
        wire::Records{.bytes = payload}};
  }
  const std::array<CodecTopic, 2> topics = {CodecTopic{"orders", partitions},
                                            CodecTopic{"payments", partitions}};
  const CodecRequest request{5000, topics};
  for (bool flexible : {false, true}) {
    const wire::Context c{1, flexible};
    std::array<std::byte, 4096> scratch;
    std::array<std::byte, 4096> body_bytes;
    WriteBuffer first(scratch);
    ASSERT_TRUE(wire::encode(request, c, first).ok());
    const size_t size = first.copy_to(body_bytes);
    const std::span<const std::byte> body(body_bytes.data(), size);
    EXPECT_EQ(count_steady_state([&](int) {
                Result<CodecRequest> decoded = wire::decode<CodecRequest>(body, c, "test");
                if (!decoded.ok()) return false;
                int64_t sum = 0;
                for (const CodecTopic& t : decoded->topics) {
                  for (const CodecPartition& p : t.partitions) sum += p.index + p.records.size();
                }
                WriteBuffer out(scratch);
                bool ok = wire::encode(*decoded, c, out).ok() && out.bytes_written() == size;
                out.release();
                return ok && sum == 2 * (28 + 800);
              }),
              0u);
  }
}

}  // namespace
}  // namespace spillway
