// TaskPool: memory for the small function objects the broker posts between
// cores (an append to a partition's owner, a reply back to a connection).
//
// asio allocates every posted handler. Its default per-thread recycling
// cache only works when memory is freed on the thread that allocated it, and
// cross-core posting is exactly the opposite: core A allocates, core B frees.
// This pool has fixed-size blocks, a per-thread cache in front of a shared,
// mutex-protected free list (touched in batches), so steady-state posting
// between cores never reaches the heap. post_task() binds it to a handler.
#pragma once

#include <asio/bind_allocator.hpp>
#include <asio/post.hpp>
#include <cstddef>
#include <new>
#include <utility>

namespace spillway::broker {

class TaskPool {
 public:
  static constexpr std::size_t kBlockBytes = 512;

  // A block of at least `n` bytes; blocks above kBlockBytes come from the heap.
  static void* allocate(std::size_t n);
  static void deallocate(void* p, std::size_t n) noexcept;
};

template <typename T>
struct TaskAllocator {
  using value_type = T;
  TaskAllocator() noexcept = default;
  template <typename U>
  TaskAllocator(const TaskAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(std::size_t n) { return static_cast<T*>(TaskPool::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { TaskPool::deallocate(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const TaskAllocator<U>&) const noexcept {
    return true;
  }
};

// asio::post with the handler's memory from the TaskPool.
template <typename Target, typename F>
void post_task(Target& target, F&& f) {
  asio::post(target, asio::bind_allocator(TaskAllocator<void>(), std::forward<F>(f)));
}

}  // namespace spillway::broker
