// HandlerMemory: in-place storage for the one asynchronous operation a
// connection has outstanding in one direction (its read, its write, its idle
// timer), so steady-state socket I/O never allocates. A handler built with
// bind_memory() makes asio take its operation's memory from here; a second
// concurrent operation, or one larger than the block, falls back to the heap.
#pragma once

#include <asio/associated_allocator.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <cstddef>
#include <new>
#include <utility>

namespace spillway::broker {

class HandlerMemory {
 public:
  HandlerMemory() noexcept = default;
  HandlerMemory(const HandlerMemory&) = delete;
  HandlerMemory& operator=(const HandlerMemory&) = delete;

  void* allocate(std::size_t n) {
    if (!in_use_ && n <= sizeof(storage_)) {
      in_use_ = true;
      return storage_;
    }
    return ::operator new(n);
  }
  void deallocate(void* p) noexcept {
    if (p == storage_) {
      in_use_ = false;
    } else {
      ::operator delete(p);
    }
  }

 private:
  alignas(std::max_align_t) std::byte storage_[1024];
  bool in_use_ = false;
};

template <typename T>
struct HandlerMemoryAllocator {
  using value_type = T;
  explicit HandlerMemoryAllocator(HandlerMemory& memory) noexcept : memory(&memory) {}
  template <typename U>
  HandlerMemoryAllocator(const HandlerMemoryAllocator<U>& other) noexcept  // NOLINT
      : memory(other.memory) {}
  T* allocate(std::size_t n) { return static_cast<T*>(memory->allocate(sizeof(T) * n)); }
  void deallocate(T* p, std::size_t) noexcept { memory->deallocate(p); }
  template <typename U>
  bool operator==(const HandlerMemoryAllocator<U>& o) const noexcept {
    return memory == o.memory;
  }
  HandlerMemory* memory;
};

// A completion handler using `memory` and, optionally, a cancellation slot.
template <typename F>
class MemoryHandler {
 public:
  using allocator_type = HandlerMemoryAllocator<void>;
  using cancellation_slot_type = asio::cancellation_slot;

  MemoryHandler(HandlerMemory& memory, asio::cancellation_slot slot, F f)
      : memory_(memory), slot_(slot), f_(std::move(f)) {}
  allocator_type get_allocator() const noexcept { return allocator_type(memory_); }
  cancellation_slot_type get_cancellation_slot() const noexcept { return slot_; }

  template <typename... Args>
  void operator()(Args&&... args) {
    f_(std::forward<Args>(args)...);
  }

 private:
  HandlerMemory& memory_;
  asio::cancellation_slot slot_;
  F f_;
};

template <typename F>
MemoryHandler<std::decay_t<F>> bind_memory(HandlerMemory& memory, F&& f,
                                           asio::cancellation_slot slot = {}) {
  return MemoryHandler<std::decay_t<F>>(memory, slot, std::forward<F>(f));
}

}  // namespace spillway::broker
