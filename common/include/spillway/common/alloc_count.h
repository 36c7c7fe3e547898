// Heap-allocation counts kept by the counting global operator new/delete of
// the `spillway_alloc_count` object library (common/alloc_count/).
//
// Replacing operator new is opt-in per binary: only binaries that link
// `spillway_alloc_count` (the broker with SPILLWAY_COUNT_ALLOCATIONS=ON, the
// allocation tests and benchmarks through tests/support) count; calling these
// functions from any other binary is a link error. Only operator new is seen:
// memory that libraries take straight from malloc or mmap (zstd, liburing) is
// not counted.
#pragma once

#include <cstdint>

namespace spillway {

// operator new calls (every form) so far, in the whole process. Relaxed: a
// caller comparing two reads sees the allocations that happened-before its
// second read, which is what a before/after measurement needs.
uint64_t process_allocation_count() noexcept;

// operator new calls so far on the calling thread.
uint64_t thread_allocation_count() noexcept;

// Bytes requested from operator new so far on the calling thread.
uint64_t thread_allocated_bytes() noexcept;

}  // namespace spillway

// process_allocation_count() under a C name: the broker's metrics reference it
// weakly, so that a broker built without the counter reports -1 instead of
// failing to link.
extern "C" uint64_t spillway_heap_allocation_count() noexcept;
