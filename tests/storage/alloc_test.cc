// Proves the log's steady state allocates nothing: operator new is replaced
// in this binary (tests/support/alloc_counter). Appends, reads, read_slice
// and the durable flush cycle run thousands of times on the real file system
// after a warm-up, across many index entries, with zero allocations.
// (Rolling a segment allocates: it builds paths and opens files.)
#include <gtest/gtest.h>

#include "alloc_counter.h"
#include "log_testing.h"
#include "spillway/storage/bounded_file_system.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

// The same loop over `fs`.
void expect_append_read_and_flush_allocate_nothing(FileSystem& fs) {
  testing::ScratchDir scratch;
  LogConfig config;
  config.segment_bytes = 64 << 20;
  config.flush_policy = FlushPolicy::kDurable;
  auto log = PartitionLog::open(fs, scratch.path() + "/p", config);
  ASSERT_TRUE(log.ok());
  testing::Bytes batch = testing::make_batch(4, 250, 1);
  std::vector<std::byte> out(64 * 1024);
  Offset read_from(0);
  bool ok = true;
  auto one_round = [&](int i) {
    Result<AppendResult> r = (*log)->append(batch);
    ok &= r.ok();
    if (i % 64 == 0) {  // a group commit every 64 appends
      FlushRequest request = (*log)->begin_flush();
      ok &= (*log)->finish_flush(request, PartitionLog::run_flush(request)).ok();
      Result<FileSlice> slice = (*log)->read(read_from, out.size());
      ok &= slice.ok() && read_slice(*slice, std::span(out.data(), slice->length)).ok();
      read_from = slice->next_offset;
    }
  };
  for (int i = 0; i < 200; ++i) one_round(i);
  ::spillway::testing::AllocationScope scope;
  for (int i = 0; i < 20000; ++i) one_round(i);  // ~20 MiB: ~5000 index entries
  EXPECT_EQ(scope.thread_allocations(), 0u);
  EXPECT_TRUE(ok);
  EXPECT_EQ((*log)->segment_count(), 1u);
  EXPECT_GT(read_from, Offset(20000));
}

TEST(StorageAllocations, AppendReadAndFlushAllocateNothing) {
  expect_append_read_and_flush_allocate_nothing(posix_file_system());
}

// Through the broker's open-file bound (bounded_file_system.h): a file that
// holds its descriptor costs a lock and a list move per use, no allocation.
TEST(StorageAllocations, AppendReadAndFlushThroughTheOpenFileBoundAllocateNothing) {
  BoundedFileSystem bounded(posix_file_system(), 16);
  expect_append_read_and_flush_allocate_nothing(bounded);
  EXPECT_EQ(bounded.reopens(), 0u);
}

}  // namespace
}  // namespace spillway::storage
