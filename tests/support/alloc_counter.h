// Heap-allocation counting for tests that prove a path allocates nothing.
//
// Linking the `spillway_alloc_counter` library into a test binary replaces
// the global operator new/delete (every form) with versions that count each
// allocation, per thread and process-wide, then forward to malloc/free.
// Usage:
//
//   spillway::testing::AllocationScope scope;
//   ... steady-state loop ...
//   EXPECT_EQ(scope.thread_allocations(), 0u);
//
// Counts only operator new; memory libraries get straight from malloc or
// mmap (zstd, liburing) is not seen.
#pragma once

#include <cstdint>

namespace spillway::testing {

// Total operator new calls so far on this thread / in the process.
uint64_t thread_allocation_count() noexcept;
uint64_t process_allocation_count() noexcept;
uint64_t thread_allocated_bytes() noexcept;

// Counts allocations made between its construction and each query.
class AllocationScope {
 public:
  AllocationScope() noexcept
      : thread_start_(thread_allocation_count()),
        process_start_(process_allocation_count()),
        bytes_start_(thread_allocated_bytes()) {}
  // operator new calls on the constructing thread since construction.
  uint64_t thread_allocations() const noexcept { return thread_allocation_count() - thread_start_; }
  // operator new calls on any thread since construction.
  uint64_t process_allocations() const noexcept {
    return process_allocation_count() - process_start_;
  }
  uint64_t thread_bytes() const noexcept { return thread_allocated_bytes() - bytes_start_; }

 private:
  uint64_t thread_start_;
  uint64_t process_start_;
  uint64_t bytes_start_;
};

}  // namespace spillway::testing
