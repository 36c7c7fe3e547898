// Benchmarks of the partition log, each paired with a raw baseline measured
// in the same run, interleaved operation by operation so both see the same
// disk and page-cache conditions. Every benchmark reports `ratio` =
// log throughput / raw throughput (1.0 = as fast as the raw syscalls).
//
//   append_interval: PartitionLog::append (interval policy)  vs write(2)
//   append_durable:  append + fdatasync via flush()          vs write(2) + fdatasync
//   group_commit:    8 concurrent durable appenders vs 1 (and vs 8 raw
//                    writers doing write + fdatasync each), through the
//                    broker's Partition: appends posted to the owner core,
//                    the fdatasync on its sync thread, replies on another
//                    core (tests/broker/partition_driver.h)
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
#include "partition_driver.h"
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

// Runs `threads` workers calling `op` for `for_`; returns how many ops ran.
template <typename Op>
uint64_t run_workers(int threads, std::chrono::milliseconds for_, Op op) {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> done{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      Bytes b = batch_of(16);
      while (!stop.load(std::memory_order_relaxed)) {
        op(b);
        done.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  std::this_thread::sleep_for(for_);
  stop = true;
  for (auto& w : workers) w.join();
  return done.load();
}

// The real file system, counting the fdatasyncs of the files it opens.
class CountingFileSystem final : public FileSystem {
 public:
  uint64_t syncs() const { return syncs_.load(); }

  Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) override {
    Result<std::unique_ptr<File>> file = real_.open(path, mode);
    if (!file.ok()) return file;
    return std::unique_ptr<File>(std::make_unique<Counted>(std::move(*file), syncs_));
  }
  Status remove(const std::string& path) override { return real_.remove(path); }
  Status remove_all(const std::string& path) override { return real_.remove_all(path); }
  Status rename(const std::string& from, const std::string& to) override {
    return real_.rename(from, to);
  }
  Result<std::vector<std::string>> list_dir(const std::string& dir) override {
    return real_.list_dir(dir);
  }
  Status create_dirs(const std::string& dir) override { return real_.create_dirs(dir); }
  Status sync_dir(const std::string& dir) override { return real_.sync_dir(dir); }
  bool exists(const std::string& path) override { return real_.exists(path); }
  bool is_directory(const std::string& path) override { return real_.is_directory(path); }
  Result<std::string> read_file(const std::string& path) override { return real_.read_file(path); }
  Result<int64_t> modified_time_ms(const std::string& path) override {
    return real_.modified_time_ms(path);
  }

 private:
  class Counted final : public File {
   public:
    Counted(std::unique_ptr<File> file, std::atomic<uint64_t>& syncs)
        : file_(std::move(file)), syncs_(syncs) {}
    Result<std::size_t> write_at(std::span<const std::byte> data, uint64_t offset) override {
      return file_->write_at(data, offset);
    }
    Result<std::size_t> read_at(std::span<std::byte> out, uint64_t offset) override {
      return file_->read_at(out, offset);
    }
    Status sync_data() override {
      syncs_.fetch_add(1, std::memory_order_relaxed);
      return file_->sync_data();
    }
    Status start_writeback(uint64_t offset, uint64_t length) override {
      return file_->start_writeback(offset, length);
    }
    Status truncate(uint64_t size) override { return file_->truncate(size); }
    Result<uint64_t> size() override { return file_->size(); }
    int native_handle() const noexcept override { return file_->native_handle(); }

   private:
    std::unique_ptr<File> file_;
    std::atomic<uint64_t>& syncs_;
  };

  FileSystem& real_ = posix_file_system();
  std::atomic<uint64_t> syncs_{0};
};

// Durable appends of 16 KiB batches from 1 and from 8 threads through the
// broker's Partition (each thread posts its append to the owner core and
// waits for the reply, as a connection's handler does), and 8 raw threads
// doing pwrite + fdatasync each. The three alternate in short phases so that
// changing disk conditions hit all alike.
void BM_GroupCommit(benchmark::State& state) {
  using broker::testing::PartitionDriver;
  BenchDir dir;
  LogConfig config;
  config.flush_policy = FlushPolicy::kDurable;
  CountingFileSystem one_fs, eight_fs;
  auto one = PartitionDriver::open(one_fs, dir.path() + "/one", config);
  auto eight = PartitionDriver::open(eight_fs, dir.path() + "/eight", config);
  if (!one.ok() || !eight.ok()) std::abort();
  const int raw_fd =
      ::open((dir.path() + "/raw").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (raw_fd < 0) std::abort();
  std::atomic<uint64_t> raw_offset{0};
  const auto phase = std::chrono::milliseconds(200);
  constexpr int kRounds = 5;
  uint64_t n_one = 0, n_eight = 0, n_raw = 0;
  const uint64_t eight_syncs_before = eight_fs.syncs();
  for (auto _ : state) {
    for (int round = 0; round < kRounds; ++round) {
      n_one += run_workers(1, phase, [&](Bytes& b) {
        if (!(*one)->append_async(b, broker::AckAfter::kSync).get().status.ok()) std::abort();
      });
      n_eight += run_workers(8, phase, [&](Bytes& b) {
        if (!(*eight)->append_async(b, broker::AckAfter::kSync).get().status.ok()) std::abort();
      });
      n_raw += run_workers(8, phase, [&](Bytes& b) {
        const uint64_t at = raw_offset.fetch_add(b.size());
        if (::pwrite(raw_fd, b.data(), b.size(), off_t(at)) != ssize_t(b.size())) std::abort();
        if (::fdatasync(raw_fd) != 0) std::abort();
      });
    }
  }
  ::close(raw_fd);
  const double secs = kRounds * phase.count() / 1000.0;
  state.counters["batches_per_s_1"] = n_one / secs;
  state.counters["batches_per_s_8"] = n_eight / secs;
  state.counters["raw_8_write_fdatasync_per_s"] = n_raw / secs;
  state.counters["ratio_8_vs_1"] = double(n_eight) / double(n_one);
  state.counters["ratio_8_vs_raw_8"] = double(n_eight) / double(n_raw);
  state.counters["batches_per_fsync_8"] =
      double(n_eight) / double(eight_fs.syncs() - eight_syncs_before);
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
  Offset offset(0);
  for (auto _ : state) {
    auto t = Clock::now();
    Result<FileSlice> slice = pair.log().read(offset, kChunk);
    if (!slice.ok()) std::abort();
    if (!read_slice(*slice, std::span(log_buf.data(), slice->length)).ok()) std::abort();
    log_ns += ns_since(t);
    bytes += slice->length;
    offset = slice->next_offset >= pair.log().high_watermark() ? Offset(0) : slice->next_offset;

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
