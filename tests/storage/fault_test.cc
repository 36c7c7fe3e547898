// Disk errors are values: short writes, ENOSPC, EIO and fsync failures
// injected through the in-memory file system, at the PartitionLog. The group
// commit the broker runs over it (Partition, durable acknowledgements) has
// its own tests: tests/broker/partition_group_commit_test.cc.
#include <gtest/gtest.h>

#include "log_testing.h"
#include "memory_file_system.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

using testing::Bytes;
using testing::make_batch;
using testing::MemoryFileSystem;
using testing::read_batches;

constexpr char kDir[] = "/d/p";

LogConfig config(FlushPolicy policy) {
  return testing::small_log_config(policy);
}

TEST(Faults, ShortWritesStillStoreWholeBatches) {
  MemoryFileSystem fs;
  fs.faults().max_write_chunk = 7;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kInterval));
  ASSERT_TRUE(log.ok());
  std::vector<Bytes> stored;
  for (int i = 0; i < 30; ++i) {
    Bytes b = make_batch(2, 50 + i * 11, i);
    ASSERT_TRUE((*log)->append(b).ok());
    stored.push_back(b);
  }
  EXPECT_TRUE(testing::SameBatches(read_batches(**log, 0, 1 << 20), stored));
  log->reset();
  auto reopened = PartitionLog::open(fs, kDir, config(FlushPolicy::kInterval));
  ASSERT_TRUE(reopened.ok());
  EXPECT_TRUE(testing::SameBatches(read_batches(**reopened, 0, 1 << 20), stored));
}

TEST(Faults, NoSpaceWhenRollingLeavesTheOldSegmentActive) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kInterval));
  ASSERT_TRUE(log.ok());
  std::vector<Bytes> stored;
  while ((*log)->segment_count() == 1) {
    Bytes b = make_batch(1, 900, stored.size());
    fs.faults().capacity_bytes = fs.used_bytes() + b.size();  // fits, the next will not
    Result<AppendResult> r = (*log)->append(b);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), ErrorCode::kNotEnoughSpace);
      break;
    }
    stored.push_back(b);
    ASSERT_LT(stored.size(), 10u);
  }
  EXPECT_TRUE(testing::SameBatches(read_batches(**log, 0, 1 << 20), stored));
  fs.faults().capacity_bytes = UINT64_MAX;
  Bytes b = make_batch(1, 900, 77);
  ASSERT_TRUE((*log)->append(b).ok());
  stored.push_back(b);
  EXPECT_TRUE(testing::SameBatches(read_batches(**log, 0, 1 << 20), stored));
}

TEST(Faults, WriteErrorFailsOnlyThatAppend) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kInterval));
  ASSERT_TRUE(log.ok());
  Bytes a = make_batch(1, 10, 1);
  ASSERT_TRUE((*log)->append(a).ok());
  fs.faults().fail_writes = true;
  Bytes b = make_batch(1, 10, 2);
  EXPECT_EQ((*log)->append(b).status().code(), ErrorCode::kIoError);
  fs.faults().fail_writes = false;
  Bytes c = make_batch(1, 10, 3);
  ASSERT_TRUE((*log)->append(c).ok());
  EXPECT_TRUE(testing::SameBatches(read_batches(**log, 0, 1 << 20), (std::vector<Bytes>{a, c})));
}

TEST(Faults, FailedRollSyncMakesThePartitionReadOnly) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kInterval));
  ASSERT_TRUE(log.ok());
  Bytes b = make_batch(1, 3000, 1);
  ASSERT_TRUE((*log)->append(b).ok());
  fs.faults().fail_sync = true;
  Bytes c = make_batch(1, 3000, 2);  // needs a roll, whose fsync fails
  EXPECT_EQ((*log)->append(c).status().code(), ErrorCode::kIoError);
  EXPECT_TRUE((*log)->read_only());
  EXPECT_EQ((*log)->segment_count(), 1u);
}

}  // namespace
}  // namespace spillway::storage
