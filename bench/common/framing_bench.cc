// Benchmarks of the pooled framing layer, each beside its floor: a plain
// span writer or memcpy for WriteBuffer, in-place murmur2 for staged key
// hashing, memcpy for CRC-32C, the CRC of the same bytes for a produced
// batch's validation, one write(2) for the gather flush. The ratio
// table at the end is what to read; allocations per iteration are counted
// with the test allocation counter.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <vector>

#include "alloc_counter.h"
#include "ratio_reporter.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/crc32c.h"
#include "spillway/common/gather_writer.h"
#include "spillway/common/key_partitioner.h"
#include "spillway/common/record_batch.h"
#include "spillway/common/write_buffer.h"

namespace spillway::bench {
namespace {

constexpr std::size_t kScratch = 1024;

// The floor for WriteBuffer: a bounds-checked writer over a span.
struct SpanWriter {
  std::byte* p;
  std::byte* end;
  bool write(std::span<const std::byte> b) {
    if (static_cast<std::size_t>(end - p) < b.size()) return false;
    std::memcpy(p, b.data(), b.size());
    p += b.size();
    return true;
  }
  bool write_u8(uint8_t v) {
    if (p == end) return false;
    *p++ = static_cast<std::byte>(v);
    return true;
  }
};

// Call right after the timed loop: adding counters allocates.
void report_allocs(benchmark::State& state, const testing::AllocationScope& scope) {
  const auto n = static_cast<double>(scope.thread_allocations());
  state.counters["allocs/iter"] = benchmark::Counter(n, benchmark::Counter::kAvgIterations);
}

void WriteBuffer_ConstructRelease(benchmark::State& state) {
  std::array<std::byte, kScratch> scratch;
  testing::AllocationScope scope;
  for (auto _ : state) {
    WriteBuffer wb(scratch);
    benchmark::DoNotOptimize(&wb);
    wb.release();
  }
  report_allocs(state, scope);
}
void Floor_SpanWriter_Construct(benchmark::State& state) {
  std::array<std::byte, kScratch> scratch;
  for (auto _ : state) {
    SpanWriter w{scratch.data(), scratch.data() + scratch.size()};
    benchmark::DoNotOptimize(&w);
  }
}

void WriteBuffer_OneByteWrite(benchmark::State& state) {
  std::array<std::byte, kScratch> scratch;
  testing::AllocationScope scope;
  for (auto _ : state) {
    WriteBuffer wb(scratch);
    benchmark::DoNotOptimize(&wb);
    if (!wb.write_u8(7).ok()) state.SkipWithError("write failed");
    benchmark::DoNotOptimize(wb.bytes_written());
  }
  report_allocs(state, scope);
}
void Floor_SpanWriter_OneByteWrite(benchmark::State& state) {
  std::array<std::byte, kScratch> scratch;
  for (auto _ : state) {
    SpanWriter w{scratch.data(), scratch.data() + scratch.size()};
    benchmark::DoNotOptimize(&w);
    if (!w.write_u8(7)) state.SkipWithError("write failed");
    benchmark::DoNotOptimize(w.p);
  }
}

void WriteBuffer_OneByteCopyOut(benchmark::State& state) {
  std::array<std::byte, kScratch> scratch;
  std::array<std::byte, 16> out;
  testing::AllocationScope scope;
  for (auto _ : state) {
    WriteBuffer wb(scratch);
    benchmark::DoNotOptimize(&wb);
    if (!wb.write_u8(7).ok()) state.SkipWithError("write failed");
    benchmark::DoNotOptimize(wb.copy_to(out));
    benchmark::ClobberMemory();
  }
  report_allocs(state, scope);
}
void Floor_SpanWriter_OneByteCopyOut(benchmark::State& state) {
  std::array<std::byte, kScratch> scratch;
  std::array<std::byte, 16> out;
  for (auto _ : state) {
    SpanWriter w{scratch.data(), scratch.data() + scratch.size()};
    benchmark::DoNotOptimize(&w);
    if (!w.write_u8(7)) state.SkipWithError("write failed");
    const std::size_t n = static_cast<std::size_t>(w.p - scratch.data());
    std::memcpy(out.data(), scratch.data(), n);
    benchmark::DoNotOptimize(n);
    benchmark::ClobberMemory();
  }
}

// Writes state.range(0) bytes through a 1 KiB scratch (so it spills) and
// releases; the floor copies the same bytes into one big enough buffer.
void WriteBuffer_Spill(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> message(n, std::byte{3});
  std::array<std::byte, kScratch> scratch;
  {
    WriteBuffer warm(scratch);  // fills this thread's pool cache
    (void)warm.write(message);
  }
  testing::AllocationScope scope;
  for (auto _ : state) {
    WriteBuffer wb(scratch);
    if (!wb.write(message).ok()) state.SkipWithError("write failed");
    benchmark::DoNotOptimize(wb.bytes_written());
    benchmark::ClobberMemory();
  }
  report_allocs(state, scope);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}
void Floor_Memcpy(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> message(n, std::byte{3}), dest(n);
  for (auto _ : state) {
    std::memcpy(dest.data(), message.data(), n);
    benchmark::DoNotOptimize(dest.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}

std::vector<std::byte> make_key(std::size_t n) {
  std::vector<std::byte> k(n);
  for (std::size_t i = 0; i < n; ++i) k[i] = static_cast<std::byte>(i * 31 + 7);
  return k;
}

// Staged hashing: the key bytes are copied into the partitioner's staging
// buffer (stack up to 256 bytes, pool above), as a normalising transform
// would, and hashed there.
void KeyPartitioner_Staged(benchmark::State& state) {
  auto key = make_key(static_cast<std::size_t>(state.range(0)));
  KeyPartitioner kp;
  auto fill = [&](std::span<std::byte> out) { std::memcpy(out.data(), key.data(), key.size()); };
  (void)kp.partition_staged(key.size(), fill, 48);  // warm the pool for > 256 bytes
  testing::AllocationScope scope;
  for (auto _ : state) {
    benchmark::DoNotOptimize(key.data());
    auto p = kp.partition_staged(key.size(), fill, 48);
    benchmark::DoNotOptimize(*p);
  }
  report_allocs(state, scope);
}
// A topic-prefixed key: an 8-byte prefix and the rest of the key, hashed
// piece by piece without joining them (same total length as the floor).
void KeyPartitioner_Prefixed(benchmark::State& state) {
  auto key = make_key(static_cast<std::size_t>(state.range(0)));
  const std::span<const std::byte> all(key);
  testing::AllocationScope scope;
  for (auto _ : state) {
    benchmark::DoNotOptimize(key.data());
    benchmark::DoNotOptimize(KeyPartitioner::partition_prefixed(all.first(8), all.subspan(8), 48));
  }
  report_allocs(state, scope);
}
// The floor: the bytes hashed where they lie and mapped with Kafka's
// formula, nothing else.
void Floor_PartitionInPlace(benchmark::State& state) {
  auto key = make_key(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(key.data());
    benchmark::DoNotOptimize(partition_for_hash(murmur2(key), 48));
  }
}

void Crc32c(benchmark::State& state) {
  std::vector<std::byte> data(static_cast<std::size_t>(state.range(0)), std::byte{9});
  for (auto _ : state) benchmark::DoNotOptimize(crc32c(data));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
// The crc32 instruction alone (three streams from 3 KiB), the path before
// folding, measured beside it.
void Crc32c_Instruction(benchmark::State& state) {
  std::vector<std::byte> data(static_cast<std::size_t>(state.range(0)), std::byte{9});
  if (!crc32c_hardware_available()) {
    state.SkipWithError("no SSE4.2");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(crc32c_hardware(data));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
void Crc32c_Portable(benchmark::State& state) {
  std::vector<std::byte> data(static_cast<std::size_t>(state.range(0)), std::byte{9});
  for (auto _ : state) benchmark::DoNotOptimize(crc32c_portable(data));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}

// A producer's 256 KiB batch of keyless records of `value_bytes` each, as
// the broker receives it.
// Appends keyless `value`s until about 256 KiB; returns how many went in.
int64_t fill_batch(batch::BatchBuilder& builder, std::span<const std::byte> value) {
  batch::RecordInput record;
  record.key_is_null = true;
  record.value = value;
  int64_t records = 0;
  for (std::size_t used = 0; used + value.size() + 16 < (256u << 10); used += value.size() + 8) {
    if (!builder.append(record).ok()) break;
    ++records;
  }
  return records;
}

std::vector<std::byte> produced_batch(std::size_t value_bytes) {
  std::vector<std::byte> bytes(BufferPool::kMaxBufferSize);
  WriteBuffer out(bytes);
  batch::BatchBuilder builder;
  std::vector<std::byte> value(value_bytes, std::byte{'x'});
  (void)builder.start(out, batch::BuilderOptions{});
  (void)fill_batch(builder, value);
  Result<std::size_t> size = builder.finish();
  bytes.resize(size.ok() && !out.spilled() ? *size : 0);
  return bytes;
}

// The producer's side: a 256 KiB batch of keyless records built from
// scratch (framing, varints, value copies, CRC), beside a copy of the same
// batch's bytes: the ratio is the per-record encoding's cost.
void BuildBatch(benchmark::State& state) {
  const auto value_bytes = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> bytes(BufferPool::kMaxBufferSize), value(value_bytes, std::byte{'x'});
  int64_t records = 0;
  for (auto _ : state) {
    WriteBuffer out(bytes);
    batch::BatchBuilder builder;
    (void)builder.start(out, batch::BuilderOptions{});
    records += fill_batch(builder, value);
    if (!builder.finish().ok()) state.SkipWithError("finish failed");
    benchmark::DoNotOptimize(bytes.data());
  }
  state.counters["ns/record"] = benchmark::Counter(
      static_cast<double>(records), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void Floor_CopyBatch(benchmark::State& state) {
  const std::vector<std::byte> batch = produced_batch(static_cast<std::size_t>(state.range(0)));
  std::vector<std::byte> copy(batch.size());
  for (auto _ : state) {
    std::memcpy(copy.data(), batch.data(), batch.size());
    benchmark::DoNotOptimize(copy.data());
  }
}

// What the broker checks of every produced batch (CRC-32C and every
// record's structure), beside the CRC of the same bytes alone: the ratio
// is the per-record walk's cost.
void ValidateProduced(benchmark::State& state) {
  const std::vector<std::byte> bytes = produced_batch(static_cast<std::size_t>(state.range(0)));
  if (bytes.empty()) state.SkipWithError("could not build the batch");
  const int64_t records = batch::parse_header(bytes)->record_count;
  for (auto _ : state) {
    if (!batch::validate_produced(bytes, bytes.size()).ok()) state.SkipWithError("invalid");
  }
  state.counters["ns/record"] =
      benchmark::Counter(static_cast<double>(records) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void Floor_Crc32cOfBatch(benchmark::State& state) {
  const std::vector<std::byte> bytes = produced_batch(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(crc32c(bytes));
}

// A 16-segment table (16 x 1 KiB, as WriteBuffer segments of a 16 KiB
// message) flushed to a pipe, which is drained after each flush; the floor
// writes the same bytes from one contiguous buffer with write(2).
constexpr std::size_t kSegments = 16, kSegmentBytes = 1024;
struct Pipe {
  int fds[2];
  Pipe() {
    if (::pipe(fds) != 0) fds[0] = fds[1] = -1;
    ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  }
  ~Pipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  void drain(std::byte* buf, std::size_t n) {
    while (n > 0) {
      ssize_t r = ::read(fds[0], buf, n);
      if (r <= 0) return;
      n -= static_cast<std::size_t>(r);
    }
  }
};

void gather_flush(benchmark::State& state, GatherBackend backend) {
  std::vector<std::byte> data(kSegments * kSegmentBytes, std::byte{5}), sink(data.size());
  std::vector<iovec> iov;
  for (std::size_t i = 0; i < kSegments; ++i) {
    iov.push_back({data.data() + i * kSegmentBytes, kSegmentBytes});
  }
  Pipe pipe;
  GatherWriter w(backend);
  if (w.backend() != backend) {
    state.SkipWithError("backend unavailable");
    return;
  }
  (void)w.write_all(pipe.fds[1], iov);  // warm-up
  pipe.drain(sink.data(), sink.size());
  testing::AllocationScope scope;
  for (auto _ : state) {
    if (!w.write_all(pipe.fds[1], iov).ok()) state.SkipWithError("flush failed");
    pipe.drain(sink.data(), sink.size());
  }
  report_allocs(state, scope);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
void GatherFlush_IoUring(benchmark::State& state) {
  gather_flush(state, GatherBackend::kIoUring);
}
void GatherFlush_Writev(benchmark::State& state) {
  gather_flush(state, GatherBackend::kWritev);
}
void Floor_SingleWrite(benchmark::State& state) {
  std::vector<std::byte> data(kSegments * kSegmentBytes, std::byte{5}), sink(data.size());
  Pipe pipe;
  for (auto _ : state) {
    if (::write(pipe.fds[1], data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
      state.SkipWithError("write failed");
    }
    pipe.drain(sink.data(), sink.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}

BENCHMARK(Floor_SpanWriter_Construct);
BENCHMARK(WriteBuffer_ConstructRelease);
BENCHMARK(Floor_SpanWriter_OneByteWrite);
BENCHMARK(WriteBuffer_OneByteWrite);
BENCHMARK(Floor_SpanWriter_OneByteCopyOut);
BENCHMARK(WriteBuffer_OneByteCopyOut);
BENCHMARK(Floor_Memcpy)->Arg(2048)->Arg(200 * 1024);
BENCHMARK(WriteBuffer_Spill)->Arg(2048)->Arg(200 * 1024);
BENCHMARK(Floor_PartitionInPlace)->Arg(64)->Arg(128)->Arg(256)->Arg(1024);
BENCHMARK(KeyPartitioner_Prefixed)->Arg(64)->Arg(128)->Arg(256)->Arg(1024);
BENCHMARK(KeyPartitioner_Staged)->Arg(64)->Arg(128)->Arg(256)->Arg(1024);
BENCHMARK(Floor_Memcpy)->Arg(64 * 1024)->Arg(1 << 20);
BENCHMARK(Floor_Memcpy)->Arg(1024)->Arg(256 * 1024);
BENCHMARK(Crc32c)->Arg(1024)->Arg(64 * 1024)->Arg(256 * 1024)->Arg(1 << 20);
BENCHMARK(Crc32c_Instruction)->Arg(1024)->Arg(64 * 1024)->Arg(256 * 1024)->Arg(1 << 20);
BENCHMARK(Crc32c_Portable)->Arg(64 * 1024);
BENCHMARK(Floor_Crc32cOfBatch)->Arg(100)->Arg(1024);
BENCHMARK(ValidateProduced)->Arg(100)->Arg(1024);
BENCHMARK(Floor_CopyBatch)->Arg(100)->Arg(1024);
BENCHMARK(BuildBatch)->Arg(100)->Arg(1024);
BENCHMARK(Floor_SingleWrite);
BENCHMARK(GatherFlush_Writev);
BENCHMARK(GatherFlush_IoUring);

}  // namespace
}  // namespace spillway::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::vector<std::pair<std::string, std::string>> pairs = {
      {"WriteBuffer_ConstructRelease", "Floor_SpanWriter_Construct"},
      {"WriteBuffer_OneByteWrite", "Floor_SpanWriter_OneByteWrite"},
      {"WriteBuffer_OneByteCopyOut", "Floor_SpanWriter_OneByteCopyOut"},
      {"WriteBuffer_Spill/2048", "Floor_Memcpy/2048"},
      {"WriteBuffer_Spill/204800", "Floor_Memcpy/204800"},
      {"Crc32c/1024", "Floor_Memcpy/1024"},
      {"Crc32c/65536", "Floor_Memcpy/65536"},
      {"Crc32c/262144", "Floor_Memcpy/262144"},
      {"Crc32c/1048576", "Floor_Memcpy/1048576"},
      {"Crc32c_Instruction/1024", "Floor_Memcpy/1024"},
      {"Crc32c_Instruction/65536", "Floor_Memcpy/65536"},
      {"Crc32c_Instruction/262144", "Floor_Memcpy/262144"},
      {"Crc32c_Instruction/1048576", "Floor_Memcpy/1048576"},
      {"Crc32c_Portable/65536", "Floor_Memcpy/65536"},
      {"ValidateProduced/100", "Floor_Crc32cOfBatch/100"},
      {"ValidateProduced/1024", "Floor_Crc32cOfBatch/1024"},
      {"BuildBatch/100", "Floor_CopyBatch/100"},
      {"BuildBatch/1024", "Floor_CopyBatch/1024"},
      {"GatherFlush_Writev", "Floor_SingleWrite"},
      {"GatherFlush_IoUring", "Floor_SingleWrite"},
  };
  for (int n : {64, 128, 256, 1024}) {
    const std::string arg = "/" + std::to_string(n);
    pairs.push_back({"KeyPartitioner_Prefixed" + arg, "Floor_PartitionInPlace" + arg});
    pairs.push_back({"KeyPartitioner_Staged" + arg, "Floor_PartitionInPlace" + arg});
  }
  spillway::bench::RatioReporter reporter(pairs);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
