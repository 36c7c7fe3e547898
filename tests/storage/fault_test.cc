// Disk errors are values: short writes, ENOSPC, EIO and fsync failures
// injected through the in-memory file system; and group commit sharing one
// fdatasync between concurrent appenders.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "log_testing.h"
#include "memory_file_system.h"
#include "spillway/storage/group_commit_log.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

using testing::Bytes;
using testing::make_batch;
using testing::MemoryFileSystem;
using testing::read_batches;

constexpr char kDir[] = "/d/p";

LogConfig config(FlushPolicy policy) {
  LogConfig c;
  c.segment_bytes = 4096;
  c.index_interval_bytes = 256;
  c.flush_policy = policy;
  return c;
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

TEST(Faults, NoSpaceFailsTheAppendAndRecoversWhenSpaceIsFreed) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(log.ok());
  GroupCommitLog shared(**log);
  std::vector<Bytes> acked;
  for (int i = 0; i < 3; ++i) {
    Bytes b = make_batch(2, 300, i);
    ASSERT_TRUE(shared.append(b).ok());
    acked.push_back(b);
  }
  // Room for part of the next batch only: a short write, then ENOSPC.
  fs.faults().capacity_bytes = fs.used_bytes() + 100;
  Bytes failing = make_batch(2, 300, 50);
  Result<AppendResult> r = shared.append(failing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotEnoughSpace);
  EXPECT_FALSE((*log)->read_only());
  EXPECT_EQ((*log)->log_end_offset(), 6);
  EXPECT_TRUE(testing::SameBatches(read_batches(**log, 0, 1 << 20), acked));
  // Still full: still an error, still consistent.
  EXPECT_EQ(shared.append(failing).status().code(), ErrorCode::kNotEnoughSpace);
  fs.faults().capacity_bytes = UINT64_MAX;
  for (int i = 0; i < 20; ++i) {  // enough to roll a segment
    Bytes b = make_batch(2, 300, 100 + i);
    Result<AppendResult> ok = shared.append(b);
    ASSERT_TRUE(ok.ok()) << ok.status().to_string();
    EXPECT_EQ(ok->base_offset, 6 + 2 * i);
    acked.push_back(b);
  }
  EXPECT_TRUE(testing::SameBatches(read_batches(**log, 0, 1 << 20), acked));
  log->reset();
  auto reopened = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(reopened.ok());
  EXPECT_TRUE(testing::SameBatches(read_batches(**reopened, 0, 1 << 20), acked));
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

TEST(Faults, FailedFsyncMakesThePartitionReadOnlyUntilRestart) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(log.ok());
  GroupCommitLog shared(**log);
  Bytes a = make_batch(1, 10, 1);
  ASSERT_TRUE(shared.append(a).ok());
  fs.faults().fail_sync = true;
  Bytes b = make_batch(1, 10, 2);
  Result<AppendResult> r = shared.append(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kIoError);
  EXPECT_TRUE((*log)->read_only());
  // Not retried as if nothing happened, even once the disk looks fine again.
  fs.faults().fail_sync = false;
  Bytes c = make_batch(1, 10, 3);
  EXPECT_EQ(shared.append(c).status().code(), ErrorCode::kReadOnly);
  EXPECT_EQ((*log)->flush().code(), ErrorCode::kReadOnly);
  // Acknowledged data stays readable; the unacknowledged batch is not served.
  EXPECT_TRUE(testing::SameBatches(read_batches(**log, 0, 1 << 20), std::vector<Bytes>{a}));
  EXPECT_EQ((*log)->close().code(), ErrorCode::kReadOnly);
  EXPECT_FALSE(fs.exists(std::string(kDir) + "/.clean_shutdown"));
  log->reset();
  // A restart recovers and accepts appends again.
  auto reopened = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(reopened.ok());
  EXPECT_FALSE((*reopened)->read_only());
  ASSERT_TRUE((*reopened)->append(c).ok());
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

TEST(GroupCommit, OneFsyncCoversEveryAppendThatArrivedMeanwhile) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(log.ok());
  GroupCommitLog shared(**log);
  constexpr int kFollowers = 7;
  // The first fsync waits until all followers have written their batches, so
  // exactly one more fsync must cover all seven of them.
  std::mutex mu;
  std::condition_variable cv;
  bool first_sync = true;
  fs.faults().on_sync = [&] {
    std::unique_lock lock(mu);
    if (!first_sync) return;
    first_sync = false;
    cv.wait(lock, [&] { return shared.log_end_offset() == 1 + kFollowers; });
  };
  const uint64_t syncs_before = fs.sync_count();
  std::thread leader([&] {
    Bytes b = make_batch(1, 100, 0);
    EXPECT_TRUE(shared.append(b).ok());
  });
  while (true) {  // the leader has written and entered its fsync
    std::lock_guard lock(mu);
    if (!first_sync) break;
  }
  std::vector<std::thread> followers;
  std::atomic<int> acked{0};
  for (int i = 0; i < kFollowers; ++i) {
    followers.emplace_back([&, i] {
      Bytes b = make_batch(1, 100, i + 1);
      Result<AppendResult> r = shared.append(b);
      EXPECT_TRUE(r.ok());
      EXPECT_LT(r->last_offset, shared.durable_offset());
      acked.fetch_add(1);
    });
  }
  while (shared.log_end_offset() < 1 + kFollowers) std::this_thread::yield();
  cv.notify_all();
  leader.join();
  for (auto& t : followers) t.join();
  EXPECT_EQ(acked.load(), kFollowers);
  EXPECT_EQ(shared.sync_count(), 2u);
  EXPECT_EQ(fs.sync_count() - syncs_before, 2u);
  EXPECT_EQ(shared.durable_offset(), 1 + kFollowers);
}

TEST(GroupCommit, PipelinedSyncsAcknowledgeOnlyDurableBatches) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(log.ok());
  GroupCommitLog shared(**log, 4);
  std::mutex mu;
  std::vector<std::pair<int64_t, Bytes>> acked;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        Bytes b = make_batch(1 + i % 3, 200, t * 1000 + i);
        Result<AppendResult> r = shared.append(b);
        ASSERT_TRUE(r.ok());
        // Acknowledged means synced: the durable offset already covers it.
        EXPECT_LT(r->last_offset, shared.durable_offset());
        std::lock_guard lock(mu);
        acked.emplace_back(r->base_offset, std::move(b));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(shared.durable_offset(), shared.log_end_offset());
  // A power cut loses nothing acknowledged.
  log->reset();
  fs.simulate_power_loss();
  auto reopened = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(reopened.ok());
  std::sort(acked.begin(), acked.end());
  std::vector<Bytes> want;
  for (auto& [offset, b] : acked) want.push_back(b);
  EXPECT_TRUE(testing::SameBatches(read_batches(**reopened, 0, 1 << 20), want));
}

TEST(GroupCommit, AFailedFsyncFailsEveryAppendItCovered) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(log.ok());
  GroupCommitLog shared(**log);
  std::atomic<bool> release{false};
  fs.faults().fail_sync = true;
  fs.faults().on_sync = [&] {
    while (!release.load()) std::this_thread::yield();
  };
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      Bytes b = make_batch(1, 100, i);
      if (!shared.append(b).ok()) failed.fetch_add(1);
    });
  }
  while (shared.log_end_offset() < 4) std::this_thread::yield();
  release = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 4);
  EXPECT_TRUE((*log)->read_only());
  EXPECT_EQ(shared.durable_offset(), 0);
}

}  // namespace
}  // namespace spillway::storage
