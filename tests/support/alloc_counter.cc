// Replacement global operator new/delete that count allocations (see
// alloc_counter.h). The counting API lives in this same file so that linking
// the static library always pulls these definitions in.
#include "alloc_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace spillway::testing {
namespace {

std::atomic<uint64_t> g_process_count{0};
thread_local uint64_t t_count = 0;
thread_local uint64_t t_bytes = 0;

void note(std::size_t n) noexcept {
  ++t_count;
  t_bytes += n;
  g_process_count.fetch_add(1, std::memory_order_relaxed);
}

void* allocate(std::size_t n) noexcept {
  note(n);
  return std::malloc(n ? n : 1);
}

void* allocate_aligned(std::size_t n, std::align_val_t al) noexcept {
  note(n);
  std::size_t a = static_cast<std::size_t>(al);
  if (a < sizeof(void*)) a = sizeof(void*);
  void* p = nullptr;
  if (posix_memalign(&p, a, n ? n : 1) != 0) return nullptr;
  return p;
}

}  // namespace

uint64_t thread_allocation_count() noexcept {
  return t_count;
}
uint64_t process_allocation_count() noexcept {
  return g_process_count.load(std::memory_order_relaxed);
}
uint64_t thread_allocated_bytes() noexcept {
  return t_bytes;
}

}  // namespace spillway::testing

using spillway::testing::allocate;
using spillway::testing::allocate_aligned;

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
