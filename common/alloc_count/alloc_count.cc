// Replacement global operator new/delete (every form) that count each
// allocation, then forward to malloc/free. The cost per allocation is one
// relaxed atomic increment plus two plain thread-local additions, so the
// broker can keep it on in production. Counts are read through
// spillway/common/alloc_count.h.
#include "spillway/common/alloc_count.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace spillway {
namespace {

std::atomic<uint64_t> g_process_count{0};
// Constant-initialised and trivially destructible, so each access is a plain
// thread-pointer-relative add, with no initialisation guard.
thread_local uint64_t t_count = 0;
thread_local uint64_t t_bytes = 0;

void note(std::size_t n) noexcept {
  ++t_count;
  t_bytes += n;
  g_process_count.fetch_add(1, std::memory_order_relaxed);
}

// Null on exhaustion; the throwing operators turn that into std::bad_alloc.
void* allocate(std::size_t n) noexcept {
  note(n);
  return std::malloc(n ? n : 1);
}

// posix_memalign accepts any size, unlike aligned_alloc, which wants a
// multiple of the alignment.
void* allocate_aligned(std::size_t n, std::align_val_t al) noexcept {
  note(n);
  std::size_t a = static_cast<std::size_t>(al);
  if (a < sizeof(void*)) a = sizeof(void*);
  void* p = nullptr;
  if (posix_memalign(&p, a, n ? n : 1) != 0) return nullptr;
  return p;
}

}  // namespace

uint64_t process_allocation_count() noexcept {
  return g_process_count.load(std::memory_order_relaxed);
}
uint64_t thread_allocation_count() noexcept {
  return t_count;
}
uint64_t thread_allocated_bytes() noexcept {
  return t_bytes;
}

}  // namespace spillway

extern "C" uint64_t spillway_heap_allocation_count() noexcept {
  return spillway::process_allocation_count();
}

using spillway::allocate;
using spillway::allocate_aligned;

void* operator new(std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n);
}
void* operator new(std::size_t n, std::align_val_t al) {
  if (void* p = allocate_aligned(n, al)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t al) {
  if (void* p = allocate_aligned(n, al)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return allocate_aligned(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return allocate_aligned(n, al);
}

void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
