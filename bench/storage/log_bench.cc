// Benchmarks of the partition log, each paired with a raw baseline measured
// in the same run, interleaved operation by operation so both see the same
// disk and page-cache conditions. Every benchmark reports `ratio` =
// log throughput / raw throughput (1.0 = as fast as the raw syscalls).
//
//   append_interval: PartitionLog::append (interval policy)  vs write(2)
//   append_durable:  append + fdatasync via flush()          vs write(2) + fdatasync
//   group_commit:    8 concurrent durable appenders vs 1 (and vs 8 raw
//                    writers doing write + fdatasync each)
//   sequential_read: read() + read_slice (pread) of 1 MiB    vs pread of 1 MiB
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "bench_dir.h"
#include "spillway/storage/group_commit_log.h"
#include "spillway/storage/partition_log.h"
#include "test_batches.h"

namespace spillway::storage::bench {
namespace {

using Clock = std::chrono::steady_clock;
using testing::Bytes;

constexpr std::size_t kRecordValue = 1000;  // ~1 KiB records
constexpr uint64_t kResetBytes = 256ull << 20;

Bytes batch_of(int64_t total_kib) {
  return testing::make_batch(static_cast<int32_t>(total_kib), kRecordValue, 42);
}

double ns_since(Clock::time_point t) {
  return std::chrono::duration<double, std::nano>(Clock::now() - t).count();
}

// A log directory and a raw file side by side, recreated every kResetBytes
// so the benchmark never fills the disk.
class Pair {
 public:
  Pair(const std::string& root, LogConfig config) : root_(root), config_(config) { reset(); }
  ~Pair() { ::close(raw_fd_); }

  void reset() {
    log_.reset();
    if (raw_fd_ >= 0) ::close(raw_fd_);
    std::filesystem::remove_all(root_ + "/log");
    auto log = PartitionLog::open(posix_file_system(), root_ + "/log", config_);
    if (!log.ok()) std::abort();
    log_ = std::move(*log);
    raw_fd_ = ::open((root_ + "/raw").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (raw_fd_ < 0) std::abort();
  }

  PartitionLog& log() { return *log_; }
  int raw_fd() const { return raw_fd_; }

 private:
  std::string root_;
  LogConfig config_;
  std::unique_ptr<PartitionLog> log_;
  int raw_fd_ = -1;
};

void report(benchmark::State& state, double log_ns, double raw_ns, uint64_t bytes) {
  state.counters["log_MBps"] = bytes / (log_ns / 1e9) / 1e6;
  state.counters["raw_MBps"] = bytes / (raw_ns / 1e9) / 1e6;
  state.counters["ratio"] = raw_ns / log_ns;
}

void append_paired(benchmark::State& state, FlushPolicy policy) {
  BenchDir dir;
  LogConfig config;
  config.flush_policy = policy;
  config.segment_bytes = 1ull << 30;
  config.max_batch_bytes = 1u << 20;
  // The interval policy syncs once a second; the byte trigger is left out of
  // the way so the run measures appends, not a periodic 64 MiB fsync.
  config.flush_interval_ms = 1000;
  config.flush_interval_bytes = 1ull << 40;
  Pair pair(dir.path(), config);
  Bytes batch = batch_of(state.range(0));
  const bool durable = policy == FlushPolicy::kDurable;
  double log_ns = 0, raw_ns = 0;
  uint64_t bytes = 0, since_reset = 0, n = 0;
  for (auto _ : state) {
    auto log_op = [&] {
      const auto t = Clock::now();
      if (!pair.log().append(batch).ok()) std::abort();
      if (durable && !pair.log().flush().ok()) std::abort();
      log_ns += ns_since(t);
    };
    auto raw_op = [&] {
      const auto t = Clock::now();
      if (::write(pair.raw_fd(), batch.data(), batch.size()) != ssize_t(batch.size())) {
        std::abort();
      }
      if (durable && ::fdatasync(pair.raw_fd()) != 0) std::abort();
      raw_ns += ns_since(t);
    };
    // Alternate which goes first so neither always follows the other.
    if (++n % 2) {
      log_op();
      raw_op();
    } else {
      raw_op();
      log_op();
    }
    bytes += batch.size();
    since_reset += batch.size();
    if (since_reset >= kResetBytes) {
      state.PauseTiming();
      pair.reset();
      since_reset = 0;
      state.ResumeTiming();
    }
  }
  state.counters["batch_bytes"] = batch.size();
  report(state, log_ns, raw_ns, bytes);
}

void BM_AppendInterval(benchmark::State& state) {
  append_paired(state, FlushPolicy::kInterval);
}
void BM_AppendDurable(benchmark::State& state) {
  append_paired(state, FlushPolicy::kDurable);
}
BENCHMARK(BM_AppendInterval)->Arg(16)->Arg(256)->ArgName("KiB")->MinTime(1.0);
BENCHMARK(BM_AppendDurable)->Arg(16)->Arg(256)->ArgName("KiB")->MinTime(1.0);

// Batches per second with `threads` appenders on one durable log for `for_`.
double group_commit_rate(const std::string& dir, int threads, std::chrono::milliseconds for_,
                         uint64_t* syncs) {
  std::filesystem::remove_all(dir);
  LogConfig config;
  config.flush_policy = FlushPolicy::kDurable;
  auto log = PartitionLog::open(posix_file_system(), dir, config);
  if (!log.ok()) std::abort();
  GroupCommitLog shared(**log);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> done{0};
  std::vector<std::thread> workers;
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      Bytes b = batch_of(16);
      while (!stop.load(std::memory_order_relaxed)) {
        if (!shared.append(b).ok()) std::abort();
        done.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  std::this_thread::sleep_for(for_);
  stop = true;
  for (auto& w : workers) w.join();
  const double secs = ns_since(start) / 1e9;
  *syncs = shared.sync_count();
  return done.load() / secs;
}

// Batches per second with `threads` raw writers, each write + fdatasync.
double raw_sync_rate(const std::string& path, int threads, std::chrono::milliseconds for_) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) std::abort();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> done{0}, offset{0};
  std::vector<std::thread> workers;
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      Bytes b = batch_of(16);
      while (!stop.load(std::memory_order_relaxed)) {
        const uint64_t at = offset.fetch_add(b.size());
        if (::pwrite(fd, b.data(), b.size(), off_t(at)) != ssize_t(b.size())) std::abort();
        if (::fdatasync(fd) != 0) std::abort();
        done.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  std::this_thread::sleep_for(for_);
  stop = true;
  for (auto& w : workers) w.join();
  const double secs = ns_since(start) / 1e9;
  ::close(fd);
  return done.load() / secs;
}

void BM_GroupCommit(benchmark::State& state) {
  BenchDir dir;
  const auto phase = std::chrono::milliseconds(1000);
  double one = 0, eight = 0, raw_eight = 0;
  uint64_t syncs_one = 0, syncs_eight = 0;
  for (auto _ : state) {
    one = group_commit_rate(dir.path() + "/one", 1, phase, &syncs_one);
    eight = group_commit_rate(dir.path() + "/eight", 8, phase, &syncs_eight);
    raw_eight = raw_sync_rate(dir.path() + "/raw", 8, phase);
  }
  state.counters["batches_per_s_1"] = one;
  state.counters["batches_per_s_8"] = eight;
  state.counters["raw_8_write_fdatasync_per_s"] = raw_eight;
  state.counters["ratio_8_vs_1"] = eight / one;
  state.counters["ratio_8_vs_raw_8"] = eight / raw_eight;
  state.counters["batches_per_fsync_8"] = eight * (phase.count() / 1000.0) / double(syncs_eight);
}
BENCHMARK(BM_GroupCommit)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SequentialRead(benchmark::State& state) {
  BenchDir dir;
  LogConfig config;
  config.segment_bytes = 1ull << 30;
  config.flush_interval_bytes = 1ull << 40;
  Pair pair(dir.path(), config);
  Bytes batch = batch_of(state.range(0));
  uint64_t written = 0;
  while (written < (128ull << 20)) {
    if (!pair.log().append(batch).ok()) std::abort();
    written += batch.size();
  }
  if (!pair.log().flush().ok()) std::abort();
  const std::string segment = Segment::log_path(pair.log().dir(), 0);
  const int raw_fd = ::open(segment.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw_fd < 0) std::abort();
  constexpr uint64_t kChunk = 1 << 20;
  std::vector<std::byte> log_buf(kChunk + batch.size()), raw_buf(kChunk);
  double log_ns = 0, raw_ns = 0;
  uint64_t bytes = 0, raw_bytes = 0, raw_pos = 0;
  int64_t offset = 0;
  for (auto _ : state) {
    auto t = Clock::now();
    Result<FileSlice> slice = pair.log().read(offset, kChunk);
    if (!slice.ok()) std::abort();
    if (!read_slice(*slice, std::span(log_buf.data(), slice->length)).ok()) std::abort();
    log_ns += ns_since(t);
    bytes += slice->length;
    offset = slice->next_offset >= pair.log().high_watermark() ? 0 : slice->next_offset;

    t = Clock::now();
    const ssize_t n = ::pread(raw_fd, raw_buf.data(), slice->length, off_t(raw_pos));
    if (n < 0) std::abort();
    raw_ns += ns_since(t);
    raw_bytes += uint64_t(n);
    raw_pos = raw_pos + uint64_t(n) + kChunk > written ? 0 : raw_pos + uint64_t(n);
    benchmark::DoNotOptimize(log_buf.data());
    benchmark::DoNotOptimize(raw_buf.data());
  }
  ::close(raw_fd);
  state.counters["log_MBps"] = bytes / (log_ns / 1e9) / 1e6;
  state.counters["raw_MBps"] = raw_bytes / (raw_ns / 1e9) / 1e6;
  state.counters["ratio"] = (bytes / log_ns) / (raw_bytes / raw_ns);
}
BENCHMARK(BM_SequentialRead)->Arg(16)->Arg(256)->ArgName("KiB")->MinTime(1.0);

}  // namespace
}  // namespace spillway::storage::bench

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
