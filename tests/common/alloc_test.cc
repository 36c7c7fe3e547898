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
