// The group commit production runs: durable acknowledgements on a
// partition's owner core (Partition::append -> start_flush), the fdatasync
// on the core's sync thread (PartitionLog::run_flush) and finish_flush back
// on the owner, driven as the broker drives them (partition_driver.h) over
// the in-memory file system. As in LevelDB's log_test.cc, the tests of every
// error path of that code follow those of the normal one: ENOSPC, short
// writes, write errors, a failed fdatasync (for the appends it covered and
// those waiting for the next), the interval policy's periodic fdatasync, and
// a partition closed with appends waiting.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "log_testing.h"
#include "memory_file_system.h"
#include "partition_driver.h"

namespace spillway::broker {
namespace {

using storage::FlushPolicy;
using storage::LogConfig;
using storage::PartitionLog;
using storage::testing::Bytes;
using storage::testing::make_batch;
using storage::testing::MemoryFileSystem;
using storage::testing::read_batches;
using storage::testing::SameBatches;
using testing::PartitionDriver;

constexpr char kDir[] = "/d/p";

// As TopicRegistry opens a partition's log: under `interval` the periodic
// fdatasync is the Partition's (on the sync thread), never the log's own.
LogConfig config(FlushPolicy policy) {
  LogConfig c = storage::testing::small_log_config(policy);
  if (policy == FlushPolicy::kInterval) {
    c.flush_interval_ms = INT64_MAX / 2;
    c.flush_interval_bytes = UINT64_MAX;
  }
  return c;
}

std::unique_ptr<PartitionDriver> open(MemoryFileSystem& fs, FlushPolicy policy,
                                      int64_t flush_interval_ms = 0) {
  auto driver = PartitionDriver::open(fs, kDir, config(policy), flush_interval_ms);
  EXPECT_TRUE(driver.ok()) << driver.status().to_string();
  return driver.ok() ? std::move(*driver) : nullptr;
}

// The owner's view of the log, read on the owner core.
Offset log_end(PartitionDriver& d) {
  return d.on_owner([](Partition&, PartitionLog& log) { return log.log_end_offset(); });
}
Offset durable(PartitionDriver& d) {
  return d.on_owner([](Partition&, PartitionLog& log) { return log.durable_offset(); });
}
bool read_only(PartitionDriver& d) {
  return d.on_owner([](Partition&, PartitionLog& log) { return log.read_only(); });
}
std::vector<Bytes> stored(PartitionDriver& d) {
  return d.on_owner([](Partition&, PartitionLog& log) { return read_batches(log, 0, 1 << 20); });
}

// Drops the partition as a crash does (no clean close), loses what was not
// synced on a power loss, and reads the log back as the next start opens it.
enum class PowerLoss { kNo, kYes };
std::vector<Bytes> after_restart(std::unique_ptr<PartitionDriver>& d, MemoryFileSystem& fs,
                                 PowerLoss power) {
  d->close(Closing::kDeleted);
  d.reset();
  if (power == PowerLoss::kYes) fs.simulate_power_loss();
  auto reopened = PartitionLog::open(fs, kDir, config(FlushPolicy::kDurable));
  EXPECT_TRUE(reopened.ok()) << reopened.status().to_string();
  return reopened.ok() ? read_batches(**reopened, 0, 1 << 20) : std::vector<Bytes>();
}

// Holds the next fdatasync after hold_next() on the sync thread until
// release(), so that the test can append while it runs. Declare it before
// the driver: it must outlive every fdatasync.
class HeldSync {
 public:
  explicit HeldSync(MemoryFileSystem& fs) : fs_(fs) {
    fs.faults().on_sync = [this] {
      std::unique_lock lock(mu_);
      if (!armed_ || used_) return;
      used_ = true;
      entered_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
    };
  }
  ~HeldSync() { fs_.faults().on_sync = nullptr; }
  void hold_next() {
    std::lock_guard lock(mu_);
    armed_ = true;
  }
  void wait_until_entered() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return entered_; });
  }
  void release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  MemoryFileSystem& fs_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, used_ = false, entered_ = false, released_ = false;
};

TEST(PartitionGroupCommit, OneFsyncCoversEveryAppendThatArrivedMeanwhile) {
  MemoryFileSystem fs;
  HeldSync held(fs);
  auto d = open(fs, FlushPolicy::kDurable);
  constexpr int kFollowers = 7;
  const uint64_t syncs_before = fs.sync_count();
  // The first fsync waits until all followers have written their batches, so
  // exactly one more fsync must cover all seven of them.
  held.hold_next();
  Bytes first = make_batch(1, 100, 0);
  auto leader = d->append_async(first, AckAfter::kSync);
  held.wait_until_entered();
  std::vector<std::future<PartitionReply>> followers;
  for (int i = 0; i < kFollowers; ++i) {
    Bytes b = make_batch(1, 100, i + 1);
    followers.push_back(d->append_async(b, AckAfter::kSync));
  }
  while (log_end(*d) < Offset(1 + kFollowers)) std::this_thread::yield();
  held.release();
  EXPECT_TRUE(leader.get().status.ok());
  int acked = 0;
  for (auto& f : followers) {
    PartitionReply r = f.get();
    EXPECT_TRUE(r.status.ok()) << r.status.to_string();
    EXPECT_LT(r.last_offset, durable(*d));
    ++acked;
  }
  EXPECT_EQ(acked, kFollowers);
  EXPECT_EQ(fs.sync_count() - syncs_before, 2u);
  EXPECT_EQ(durable(*d), Offset(1 + kFollowers));
  EXPECT_EQ(d->partition().high_watermark(), Offset(1 + kFollowers));
}

TEST(PartitionGroupCommit, ConcurrentAppendersAreAcknowledgedOnlyOnceDurable) {
  MemoryFileSystem fs;
  auto d = open(fs, FlushPolicy::kDurable);
  std::mutex mu;
  std::vector<std::pair<int64_t, Bytes>> acked;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        Bytes b = make_batch(1 + i % 3, 200, t * 1000 + i);
        PartitionReply r = d->append(b, AckAfter::kSync);
        ASSERT_TRUE(r.status.ok()) << r.status.to_string();
        // Acknowledged means synced: the durable offset already covers it.
        EXPECT_LT(r.last_offset, durable(*d));
        std::lock_guard lock(mu);
        acked.emplace_back(r.base_offset.value(), std::move(b));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(durable(*d), log_end(*d));
  // A power cut loses nothing acknowledged.
  std::sort(acked.begin(), acked.end());
  std::vector<Bytes> want;
  for (auto& [offset, b] : acked) want.push_back(b);
  EXPECT_TRUE(SameBatches(after_restart(d, fs, PowerLoss::kYes), want));
}

TEST(PartitionGroupCommit, AcksLeaderUnderTheDurablePolicyAnswersAtOnceAndPublishesOnceSynced) {
  MemoryFileSystem fs;
  HeldSync held(fs);
  auto d = open(fs, FlushPolicy::kDurable);
  held.hold_next();
  Bytes b = make_batch(2, 100, 1);
  PartitionReply r = d->append(b, AckAfter::kWrite);  // answered with the sync still held
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.base_offset, Offset(0));
  held.wait_until_entered();
  EXPECT_EQ(d->partition().high_watermark(), Offset(0)) << "readers saw an unsynced batch";
  EXPECT_TRUE(stored(*d).empty());
  held.release();
  while (durable(*d) < Offset(2)) std::this_thread::yield();
  EXPECT_EQ(d->on_owner([](Partition& p, PartitionLog&) { return p.high_watermark(); }), Offset(2));
  EXPECT_TRUE(SameBatches(stored(*d), {b}));
}

// Tests of all the error paths of the group commit above follow.

TEST(PartitionGroupCommit, NoSpaceFailsTheAppendAndRecoversWhenSpaceIsFreed) {
  MemoryFileSystem fs;
  auto d = open(fs, FlushPolicy::kDurable);
  std::vector<Bytes> acked;
  for (int i = 0; i < 3; ++i) {
    Bytes b = make_batch(2, 300, i);
    ASSERT_TRUE(d->append(b, AckAfter::kSync).status.ok());
    acked.push_back(b);
  }
  // Room for part of the next batch only: a short write, then ENOSPC.
  fs.faults().capacity_bytes = fs.used_bytes() + 100;
  Bytes failing = make_batch(2, 300, 50);
  PartitionReply r = d->append(failing, AckAfter::kSync);
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), ErrorCode::kNotEnoughSpace);
  EXPECT_FALSE(read_only(*d));
  EXPECT_EQ(log_end(*d), Offset(6));
  EXPECT_TRUE(SameBatches(stored(*d), acked));
  // Still full: still an error, still consistent.
  EXPECT_EQ(d->append(failing, AckAfter::kSync).status.code(), ErrorCode::kNotEnoughSpace);
  fs.faults().capacity_bytes = UINT64_MAX;
  for (int i = 0; i < 20; ++i) {  // enough to roll a segment
    Bytes b = make_batch(2, 300, 100 + i);
    PartitionReply ok = d->append(b, AckAfter::kSync);
    ASSERT_TRUE(ok.status.ok()) << ok.status.to_string();
    EXPECT_EQ(ok.base_offset, Offset(6 + 2 * i));
    acked.push_back(b);
  }
  EXPECT_TRUE(SameBatches(stored(*d), acked));
  EXPECT_TRUE(SameBatches(after_restart(d, fs, PowerLoss::kNo), acked));
}

TEST(PartitionGroupCommit, ShortWritesStillStoreAndAcknowledgeWholeBatches) {
  MemoryFileSystem fs;
  fs.faults().max_write_chunk = 7;
  auto d = open(fs, FlushPolicy::kDurable);
  std::vector<Bytes> acked;
  for (int i = 0; i < 30; ++i) {
    Bytes b = make_batch(2, 50 + i * 11, i);
    ASSERT_TRUE(d->append(b, AckAfter::kSync).status.ok());
    acked.push_back(b);
  }
  EXPECT_TRUE(SameBatches(stored(*d), acked));
  EXPECT_TRUE(SameBatches(after_restart(d, fs, PowerLoss::kYes), acked));
}

TEST(PartitionGroupCommit, AWriteErrorFailsOnlyThatAppend) {
  MemoryFileSystem fs;
  auto d = open(fs, FlushPolicy::kDurable);
  Bytes a = make_batch(1, 10, 1);
  ASSERT_TRUE(d->append(a, AckAfter::kSync).status.ok());
  fs.faults().fail_writes = true;
  Bytes b = make_batch(1, 10, 2);
  EXPECT_EQ(d->append(b, AckAfter::kSync).status.code(), ErrorCode::kIoError);
  fs.faults().fail_writes = false;
  Bytes c = make_batch(1, 10, 3);
  PartitionReply r = d->append(c, AckAfter::kSync);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.base_offset, Offset(1));
  EXPECT_TRUE(SameBatches(stored(*d), (std::vector<Bytes>{a, c})));
}

TEST(PartitionGroupCommit, FailedFsyncMakesThePartitionReadOnlyUntilRestart) {
  MemoryFileSystem fs;
  auto d = open(fs, FlushPolicy::kDurable);
  Bytes a = make_batch(1, 10, 1);
  ASSERT_TRUE(d->append(a, AckAfter::kSync).status.ok());
  fs.faults().fail_sync = true;
  Bytes b = make_batch(1, 10, 2);
  PartitionReply r = d->append(b, AckAfter::kSync);
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), ErrorCode::kIoError);
  EXPECT_TRUE(read_only(*d));
  // Not retried as if nothing happened, even once the disk looks fine again.
  fs.faults().fail_sync = false;
  Bytes c = make_batch(1, 10, 3);
  EXPECT_EQ(d->append(c, AckAfter::kSync).status.code(), ErrorCode::kReadOnly);
  EXPECT_EQ(d->append(c, AckAfter::kWrite).status.code(), ErrorCode::kReadOnly);
  EXPECT_EQ(d->on_owner([](Partition&, PartitionLog& log) { return log.flush(); }).code(),
            ErrorCode::kReadOnly);
  // Acknowledged data stays readable; the unacknowledged batch is not served.
  EXPECT_TRUE(SameBatches(stored(*d), std::vector<Bytes>{a}));
  EXPECT_EQ(d->partition().high_watermark(), Offset(1));
  EXPECT_EQ(d->on_owner([](Partition&, PartitionLog& log) { return log.close(); }).code(),
            ErrorCode::kReadOnly);
  EXPECT_FALSE(fs.exists(std::string(kDir) + "/.clean_shutdown"));
  d->close(Closing::kDeleted);
  d.reset();
  // A restart recovers and accepts appends again.
  auto reopened = PartitionDriver::open(fs, kDir, config(FlushPolicy::kDurable));
  ASSERT_TRUE(reopened.ok());
  EXPECT_FALSE(read_only(**reopened));
  EXPECT_TRUE((*reopened)->append(c, AckAfter::kSync).status.ok());
}

TEST(PartitionGroupCommit, AFailedFsyncFailsEveryAppendWaitingForIt) {
  MemoryFileSystem fs;
  HeldSync held(fs);
  auto d = open(fs, FlushPolicy::kDurable);
  fs.faults().fail_sync = true;
  held.hold_next();
  // The first append starts the fsync, which covers only it; the other three
  // arrive while it runs and wait for the next one, which never comes.
  std::vector<std::future<PartitionReply>> replies;
  replies.push_back(d->append_async(make_batch(1, 100, 0), AckAfter::kSync));
  held.wait_until_entered();
  for (int i = 1; i < 4; ++i)
    replies.push_back(d->append_async(make_batch(1, 100, i), AckAfter::kSync));
  while (log_end(*d) < Offset(4)) std::this_thread::yield();
  held.release();
  int failed = 0;
  for (auto& f : replies) {
    PartitionReply r = f.get();
    EXPECT_EQ(r.status.code(), ErrorCode::kIoError) << r.status.to_string();
    if (!r.status.ok()) ++failed;
  }
  EXPECT_EQ(failed, 4);
  EXPECT_TRUE(read_only(*d));
  EXPECT_EQ(durable(*d), Offset(0));
  EXPECT_EQ(d->partition().high_watermark(), Offset(0));
}

TEST(PartitionGroupCommit, AppendsWaitingWhenThePartitionClosesLearnItIsGone) {
  MemoryFileSystem fs;
  HeldSync held(fs);
  auto d = open(fs, FlushPolicy::kDurable);
  held.hold_next();
  auto first = d->append_async(make_batch(1, 100, 0), AckAfter::kSync);
  held.wait_until_entered();
  auto second = d->append_async(make_batch(1, 100, 1), AckAfter::kSync);
  while (log_end(*d) < Offset(2)) std::this_thread::yield();
  d->close(Closing::kDeleted);  // the topic is deleted
  for (auto* f : {&first, &second}) {
    PartitionReply r = f->get();
    EXPECT_EQ(r.status.code(), ErrorCode::kUnknownTopic);
    EXPECT_EQ(r.status.message(), "topic t was deleted");
  }
  held.release();  // the fsync ends after the close: nothing more happens
  EXPECT_EQ(d->append(make_batch(1, 100, 2), AckAfter::kSync).status.code(),
            ErrorCode::kUnknownTopic);
}

// The `interval` policy: no append waits; the flush tick starts the periodic
// fdatasync on the sync thread.
TEST(PartitionIntervalFlush, TheTickSyncsOnTheSyncThreadAndAFailureStopsAppends) {
  MemoryFileSystem fs;
  auto d = open(fs, FlushPolicy::kInterval, /*flush_interval_ms=*/1);
  Bytes a = make_batch(1, 100, 0);
  PartitionReply r = d->append(a, AckAfter::kWrite);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(d->partition().high_watermark(), Offset(1)) << "interval publishes at once";
  const uint64_t syncs = fs.sync_count();
  while (durable(*d) < Offset(1)) d->on_owner([](Partition& p, PartitionLog&) { p.tick(); });
  EXPECT_GT(fs.sync_count(), syncs);

  fs.faults().fail_sync = true;
  ASSERT_TRUE(d->append(make_batch(1, 100, 1), AckAfter::kWrite).status.ok());
  while (!read_only(*d)) d->on_owner([](Partition& p, PartitionLog&) { p.tick(); });
  fs.faults().fail_sync = false;
  EXPECT_EQ(d->append(make_batch(1, 100, 2), AckAfter::kWrite).status.code(), ErrorCode::kReadOnly);
  EXPECT_EQ(durable(*d), Offset(1));
}

// acks=2 on an `interval` topic waits for a sync of its own.
TEST(PartitionIntervalFlush, ADurableAppendWaitsForItsSync) {
  MemoryFileSystem fs;
  auto d = open(fs, FlushPolicy::kInterval, /*flush_interval_ms=*/3'600'000);
  ASSERT_TRUE(d->append(make_batch(1, 100, 0), AckAfter::kWrite).status.ok());
  EXPECT_EQ(durable(*d), Offset(0));
  PartitionReply r = d->append(make_batch(1, 100, 1), AckAfter::kSync);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.base_offset, Offset(1));
  EXPECT_EQ(durable(*d), Offset(2));
  fs.faults().fail_sync = true;
  EXPECT_EQ(d->append(make_batch(1, 100, 2), AckAfter::kSync).status.code(), ErrorCode::kIoError);
  EXPECT_TRUE(read_only(*d));
}

}  // namespace
}  // namespace spillway::broker
