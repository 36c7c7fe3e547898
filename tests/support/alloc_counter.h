// Heap-allocation counting for tests that prove a path allocates nothing.
//
// Linking the `spillway_alloc_counter` library into a test binary links the
// counting global operator new/delete of common/alloc_count (see
// spillway/common/alloc_count.h), which count each allocation per thread and
// process-wide. Usage:
//
//   spillway::testing::AllocationScope scope;
//   ... steady-state loop ...
//   EXPECT_EQ(scope.thread_allocations(), 0u);
//
// Counts only operator new; memory libraries get straight from malloc or
// mmap (zstd, liburing) is not seen.
#pragma once

#include <cstdint>

#include "spillway/common/alloc_count.h"

namespace spillway::testing {

// Total operator new calls so far on this thread / in the process, and bytes
// requested on this thread.
using ::spillway::process_allocation_count;
using ::spillway::thread_allocated_bytes;
using ::spillway::thread_allocation_count;

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
