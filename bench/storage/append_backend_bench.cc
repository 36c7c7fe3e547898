// Log appends through plain syscalls beside io_uring, on the broker's own
// terms (issue 18: "measure both backends side by side and keep io_uring
// only where it wins"). The broker appends a batch with one pwrite on the
// partition's owner core and, under `durable`, makes it durable with
// fdatasync on the core's sync thread. The io_uring forms are what would
// replace them: one IORING_OP_WRITE per batch, and a WRITE linked to an
// FSYNC(DATASYNC) in one submission. Each form submits and waits for its
// completion, as an append must know its result before it is acknowledged.
//
//   build/release/bench/storage/append_backend_bench
//   SPILLWAY_BENCH_DIR=/data build/release/bench/storage/append_backend_bench
//
// Files are cut back to empty every 64 MiB so the page cache does not grow
// for the whole run; the disk directory comes from bench_dir.h (never tmpfs).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_dir.h"

namespace spillway::storage::bench {
namespace {

constexpr uint64_t kRewindBytes = 64u << 20;

// A fresh file in a disk-backed directory.
class AppendFile {
 public:
  AppendFile() {
    path_ = dir_.path() + "/append.log";
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  ~AppendFile() { ::close(fd_); }
  int fd() const { return fd_; }
  // The next write's position; rewinds (truncating) past kRewindBytes.
  uint64_t next(std::size_t n) {
    if (at_ + n > kRewindBytes) {
      if (::ftruncate(fd_, 0) != 0) std::abort();
      at_ = 0;
    }
    const uint64_t here = at_;
    at_ += n;
    return here;
  }

 private:
  BenchDir dir_;
  std::string path_;
  int fd_ = -1;
  uint64_t at_ = 0;
};

class Ring {
 public:
  Ring() { ok_ = io_uring_queue_init(8, &ring_, 0) == 0; }
  ~Ring() {
    if (ok_) io_uring_queue_exit(&ring_);
  }
  bool ok() const { return ok_; }
  io_uring* get() { return &ring_; }
  // Waits for `n` completions; false if any failed or was short.
  bool reap(unsigned n, std::size_t expect_bytes) {
    bool good = true;
    for (unsigned i = 0; i < n; ++i) {
      io_uring_cqe* cqe = nullptr;
      if (io_uring_wait_cqe(&ring_, &cqe) != 0) return false;
      if (cqe->res < 0 || (i == 0 && static_cast<std::size_t>(cqe->res) != expect_bytes)) {
        good = false;
      }
      io_uring_cqe_seen(&ring_, cqe);
    }
    return good;
  }

 private:
  io_uring ring_{};
  bool ok_ = false;
};

void Append_Pwrite(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> batch(n, std::byte{7});
  AppendFile file;
  for (auto _ : state) {
    if (::pwrite(file.fd(), batch.data(), n, static_cast<off_t>(file.next(n))) !=
        static_cast<ssize_t>(n)) {
      state.SkipWithError("pwrite failed");
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}

void Append_IoUringWrite(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> batch(n, std::byte{7});
  AppendFile file;
  Ring ring;
  if (!ring.ok()) {
    state.SkipWithError("io_uring unavailable");
    return;
  }
  for (auto _ : state) {
    io_uring_sqe* sqe = io_uring_get_sqe(ring.get());
    io_uring_prep_write(sqe, file.fd(), batch.data(), static_cast<unsigned>(n), file.next(n));
    io_uring_submit(ring.get());
    if (!ring.reap(1, n)) {
      state.SkipWithError("io_uring write failed");
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}

// Durable: every append synced before the next (the worst case of group
// commit: one batch per sync).
void DurableAppend_PwriteFdatasync(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> batch(n, std::byte{7});
  AppendFile file;
  for (auto _ : state) {
    if (::pwrite(file.fd(), batch.data(), n, static_cast<off_t>(file.next(n))) !=
            static_cast<ssize_t>(n) ||
        ::fdatasync(file.fd()) != 0) {
      state.SkipWithError("pwrite/fdatasync failed");
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}

void DurableAppend_IoUringLinked(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> batch(n, std::byte{7});
  AppendFile file;
  Ring ring;
  if (!ring.ok()) {
    state.SkipWithError("io_uring unavailable");
    return;
  }
  for (auto _ : state) {
    io_uring_sqe* write = io_uring_get_sqe(ring.get());
    io_uring_prep_write(write, file.fd(), batch.data(), static_cast<unsigned>(n), file.next(n));
    write->flags |= IOSQE_IO_LINK;
    io_uring_sqe* sync = io_uring_get_sqe(ring.get());
    io_uring_prep_fsync(sync, file.fd(), IORING_FSYNC_DATASYNC);
    io_uring_submit(ring.get());
    if (!ring.reap(2, n)) {
      state.SkipWithError("io_uring write+fsync failed");
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}

BENCHMARK(Append_Pwrite)->Arg(1024)->Arg(16384)->Arg(262144);
BENCHMARK(Append_IoUringWrite)->Arg(1024)->Arg(16384)->Arg(262144);
BENCHMARK(DurableAppend_PwriteFdatasync)->Arg(16384)->Arg(262144)->MinTime(2.0);
BENCHMARK(DurableAppend_IoUringLinked)->Arg(16384)->Arg(262144)->MinTime(2.0);

}  // namespace
}  // namespace spillway::storage::bench

BENCHMARK_MAIN();
