// BufferPool: rents and takes back the byte segments that WriteBuffer spills
// into, so that steady-state framing never touches the heap.
//
// Buffers come in a few size classes. Each thread keeps a small cache per
// class in front of a mutex-protected shared free list; the thread cache
// serves the common rent/return pair without a lock. Memory handed out is
// never zeroed. What the pool keeps is bounded: each thread cache holds a
// fixed number of buffers per class, and the shared lists keep at most
// Options::max_retained_bytes (the rest goes back to the heap). A rent can
// be refused by Options::max_outstanding_bytes, which is also how tests force
// a failed rent.
//
// Every buffer carries a 64-byte prefix (owner, class, state) in front of the
// bytes the caller sees; with Options::check_returns (default on in debug
// builds) returning a buffer twice, or one this pool never rented, aborts.
//
// Concurrency: all methods may be called from any thread; a buffer may be
// returned on a different thread than it was rented on.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <span>

namespace spillway {

class BufferPool {
 public:
  static constexpr std::size_t kNumClasses = 5;
  static constexpr std::array<std::size_t, kNumClasses> kClassSizes = {
      4u << 10, 16u << 10, 64u << 10, 256u << 10, 1u << 20};
  static constexpr std::size_t kMaxBufferSize = kClassSizes[kNumClasses - 1];

  struct Options {
    // Rents fail once this many bytes are out (rented and not returned).
    std::size_t max_outstanding_bytes = std::numeric_limits<std::size_t>::max();
    // Keep outstanding_bytes() up to date (an atomic add per rent and
    // return). Always on when max_outstanding_bytes is set; the global pool
    // runs without it.
    bool track_outstanding = true;
    // Free bytes the shared lists keep; returns beyond it go to the heap.
    std::size_t max_retained_bytes = 64u << 20;
#ifdef NDEBUG
    bool check_returns = false;
#else
    bool check_returns = true;
#endif
  };

  BufferPool() : BufferPool(Options{}) {}
  explicit BufferPool(Options options);
  // Frees every buffer the pool keeps. Precondition: every rented buffer has
  // been returned. Buffers of this pool still cached by other threads are
  // freed by those threads when they next use a pool or exit.
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // The process-wide pool, never destroyed.
  static BufferPool& global();

  // Rents a buffer of at least `min_size` bytes; the span covers the whole
  // size class (so it may be larger). Contents are indeterminate. Returns an
  // empty span when min_size > kMaxBufferSize, when the outstanding limit
  // would be passed, or when the heap is exhausted. The caller owns the
  // buffer until it passes the span's data() back to give_back().
  std::span<std::byte> rent(std::size_t min_size) noexcept;

  // Takes back a buffer that rent() on this pool handed out (its data()).
  void give_back(std::byte* data) noexcept;

  // Bytes rented and not yet returned; 0 if the pool does not track them.
  std::size_t outstanding_bytes() const noexcept {
    return outstanding_.load(std::memory_order_relaxed);
  }
  // Bytes held in the shared free lists (not counting thread caches).
  std::size_t retained_bytes() const noexcept;
  const Options& options() const noexcept {
    return options_;
  }

  // Smallest class index whose size is >= n; kNumClasses if none.
  static std::size_t class_for(std::size_t n) noexcept {
    for (std::size_t c = 0; c < kNumClasses; ++c) {
      if (kClassSizes[c] >= n) return c;
    }
    return kNumClasses;
  }

 private:
  friend struct PoolThreadCache;
  struct Prefix;

  std::byte* take_shared(std::size_t cls) noexcept;
  void put_shared(std::byte* data, std::size_t cls) noexcept;
  [[noreturn]] void bad_return(const char* what) const noexcept;

  const Options options_;
  const uint64_t id_;
  const bool limited_;
  const bool tracked_;  // never reused, so a thread cache can tell pools apart
  std::atomic<std::size_t> outstanding_{0};
  mutable std::mutex mu_;
  std::array<std::byte*, kNumClasses> shared_{};  // intrusive lists via Prefix::next
  std::size_t retained_ = 0;                      // guarded by mu_
  BufferPool* live_prev_ = nullptr;               // registry of live pools
  BufferPool* live_next_ = nullptr;
};

}  // namespace spillway
