// TaskPool: fixed-size blocks with a per-thread cache over a shared list.
#include "task_pool.h"

#include <array>
#include <mutex>
#include <vector>

namespace spillway::broker {

namespace {

constexpr std::size_t kCacheBlocks = 128;  // per thread
constexpr std::size_t kBatch = 32;         // moved to/from the shared list at once

struct Block {
  Block* next;
};

struct Shared {
  std::mutex mu;
  Block* head = nullptr;
};

Shared& shared() {
  static Shared* s = new Shared();  // never destroyed: threads may outlive statics
  return *s;
}

struct ThreadCache {
  std::array<void*, kCacheBlocks> blocks;
  std::size_t count = 0;
  ~ThreadCache() {
    Shared& s = shared();
    std::lock_guard lock(s.mu);
    while (count > 0) {
      auto* b = static_cast<Block*>(blocks[--count]);
      b->next = s.head;
      s.head = b;
    }
  }
};

thread_local ThreadCache t_cache;

}  // namespace

void* TaskPool::allocate(std::size_t n) {
  if (n > kBlockBytes) return ::operator new(n);
  ThreadCache& c = t_cache;
  if (c.count == 0) {
    Shared& s = shared();
    std::lock_guard lock(s.mu);
    while (c.count < kBatch && s.head != nullptr) {
      Block* b = s.head;
      s.head = b->next;
      c.blocks[c.count++] = b;
    }
  }
  if (c.count == 0) return ::operator new(kBlockBytes);
  return c.blocks[--c.count];
}

void TaskPool::deallocate(void* p, std::size_t n) noexcept {
  if (n > kBlockBytes) {
    ::operator delete(p);
    return;
  }
  ThreadCache& c = t_cache;
  if (c.count == kCacheBlocks) {
    Shared& s = shared();
    std::lock_guard lock(s.mu);
    while (c.count > kCacheBlocks - kBatch) {
      auto* b = static_cast<Block*>(c.blocks[--c.count]);
      b->next = s.head;
      s.head = b;
    }
  }
  c.blocks[c.count++] = p;
}

}  // namespace spillway::broker
