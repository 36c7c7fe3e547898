// BufferPool implementation: size classes, per-thread caches, a bounded
// shared free list, and the debug checks on return.
#include "spillway/common/buffer_pool.h"

#include <cstdio>
#include <cstdlib>
#include <new>

namespace spillway {

// Lives in the 64 bytes in front of every buffer's data.
struct BufferPool::Prefix {
  uint64_t magic;
  const BufferPool* owner;
  std::byte* next;  // free-list link while not rented
  uint32_t cls;
  uint32_t rented;
};

namespace {

constexpr std::size_t kPrefixSize = 64;
constexpr std::align_val_t kAlign{64};
constexpr uint64_t kMagic = 0x5370696c6c426675ull;  // "SpillBfu"

// Buffers per class a thread keeps for itself: about 1 MiB of small ones,
// fewer big ones.
constexpr std::array<uint8_t, BufferPool::kNumClasses> kThreadCacheSlots = {16, 16, 8, 4, 2};
constexpr std::size_t kMaxThreadSlots = 16;

std::atomic<uint64_t> g_next_pool_id{1};
// Registry of live pools so that a thread cache can return buffers to a pool
// that still exists, or free them if it does not. Held while flushing a
// cache into a pool, so a pool cannot die mid-flush.
std::mutex g_registry_mu;
BufferPool* g_registry_head = nullptr;

}  // namespace

// One per thread: the buffers of one pool (the last one used) per class.
struct PoolThreadCache {
  uint64_t pool_id = 0;
  BufferPool* pool = nullptr;
  std::array<uint8_t, BufferPool::kNumClasses> count{};
  std::array<std::array<std::byte*, kMaxThreadSlots>, BufferPool::kNumClasses> slots;

  static BufferPool::Prefix* prefix(std::byte* data) {
    return reinterpret_cast<BufferPool::Prefix*>(data - kPrefixSize);
  }

  // Empties the cache into its pool if that pool is alive, else frees it.
  void flush() noexcept {
    if (!pool) return;
    std::lock_guard<std::mutex> lock(g_registry_mu);
    bool alive = false;
    for (BufferPool* p = g_registry_head; p; p = p->live_next_) {
      if (p == pool && p->id_ == pool_id) alive = true;
    }
    for (std::size_t c = 0; c < BufferPool::kNumClasses; ++c) {
      for (uint8_t i = 0; i < count[c]; ++i) {
        if (alive) {
          pool->put_shared(slots[c][i], c);
        } else {
          ::operator delete(slots[c][i] - kPrefixSize, kAlign);
        }
      }
      count[c] = 0;
    }
    pool = nullptr;
    pool_id = 0;
  }

  void bind(BufferPool* p, uint64_t id) noexcept {
    if (pool_id == id) return;
    flush();
    pool = p;
    pool_id = id;
  }

  ~PoolThreadCache() { flush(); }
};

namespace {
thread_local PoolThreadCache t_cache;
}

BufferPool::BufferPool(Options options)
    : options_(options),
      id_(g_next_pool_id.fetch_add(1, std::memory_order_relaxed)),
      limited_(options.max_outstanding_bytes != std::numeric_limits<std::size_t>::max()),
      tracked_(limited_ || options.track_outstanding) {
  static_assert(sizeof(Prefix) <= kPrefixSize);
  std::lock_guard<std::mutex> lock(g_registry_mu);
  live_next_ = g_registry_head;
  if (g_registry_head) g_registry_head->live_prev_ = this;
  g_registry_head = this;
}

BufferPool::~BufferPool() {
  if (t_cache.pool_id == id_) t_cache.flush();
  {
    std::lock_guard<std::mutex> lock(g_registry_mu);
    if (live_prev_) live_prev_->live_next_ = live_next_;
    if (live_next_) live_next_->live_prev_ = live_prev_;
    if (g_registry_head == this) g_registry_head = live_next_;
  }
  for (std::size_t c = 0; c < kNumClasses; ++c) {
    while (std::byte* data = shared_[c]) {
      shared_[c] = PoolThreadCache::prefix(data)->next;
      ::operator delete(data - kPrefixSize, kAlign);
    }
  }
}

BufferPool& BufferPool::global() {
  // Never destroyed: threads may outlive static destructors.
  static BufferPool* pool = [] {
    Options o;
    o.track_outstanding = false;
    return new BufferPool(o);
  }();
  return *pool;
}

std::span<std::byte> BufferPool::rent(std::size_t min_size) noexcept {
  const std::size_t cls = class_for(min_size);
  if (cls == kNumClasses) return {};
  const std::size_t size = kClassSizes[cls];
  if (!limited_) {
    if (tracked_) outstanding_.fetch_add(size, std::memory_order_relaxed);
  } else {
    std::size_t cur = outstanding_.load(std::memory_order_relaxed);
    do {
      if (cur + size > options_.max_outstanding_bytes) return {};
    } while (!outstanding_.compare_exchange_weak(cur, cur + size, std::memory_order_relaxed));
  }
  std::byte* data = nullptr;
  PoolThreadCache& tc = t_cache;
  if (tc.pool_id == id_ && tc.count[cls] > 0) {
    data = tc.slots[cls][--tc.count[cls]];
  } else {
    data = take_shared(cls);
  }
  if (!data) {
    void* raw = ::operator new(kPrefixSize + size, kAlign, std::nothrow);
    if (!raw) {
      if (tracked_) outstanding_.fetch_sub(size, std::memory_order_relaxed);
      return {};
    }
    data = static_cast<std::byte*>(raw) + kPrefixSize;
    Prefix* p = PoolThreadCache::prefix(data);
    p->magic = kMagic;
    p->owner = this;
    p->cls = static_cast<uint32_t>(cls);
  }
  PoolThreadCache::prefix(data)->rented = 1;
  return {data, size};
}

void BufferPool::give_back(std::byte* data) noexcept {
  Prefix* p = PoolThreadCache::prefix(data);
  if (options_.check_returns) {
    if (p->magic != kMagic || p->owner != this) bad_return("a buffer this pool did not rent");
    if (!p->rented) bad_return("a buffer that was already returned");
  }
  p->rented = 0;
  const std::size_t cls = p->cls;
  if (tracked_) outstanding_.fetch_sub(kClassSizes[cls], std::memory_order_relaxed);
  PoolThreadCache& tc = t_cache;
  tc.bind(this, id_);
  if (tc.count[cls] < kThreadCacheSlots[cls]) {
    tc.slots[cls][tc.count[cls]++] = data;
    return;
  }
  put_shared(data, cls);
}

std::byte* BufferPool::take_shared(std::size_t cls) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  std::byte* data = shared_[cls];
  if (data) {
    shared_[cls] = PoolThreadCache::prefix(data)->next;
    retained_ -= kClassSizes[cls];
  }
  return data;
}

void BufferPool::put_shared(std::byte* data, std::size_t cls) noexcept {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (retained_ + kClassSizes[cls] <= options_.max_retained_bytes) {
      PoolThreadCache::prefix(data)->next = shared_[cls];
      shared_[cls] = data;
      retained_ += kClassSizes[cls];
      return;
    }
  }
  ::operator delete(data - kPrefixSize, kAlign);
}

std::size_t BufferPool::retained_bytes() const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  return retained_;
}

void BufferPool::bad_return(const char* what) const noexcept {
  std::fprintf(stderr, "BufferPool: give_back() of %s\n", what);
  std::abort();
}

}  // namespace spillway
