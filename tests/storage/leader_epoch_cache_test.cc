// LeaderEpochCache: Kafka's assign / endOffsetFor / truncateFromEnd /
// truncateFromStart, the durable CRC'd file (damage refused, atomic
// replacement under power loss) and the rebuild from the log's batches.
#include "spillway/storage/leader_epoch_cache.h"

#include <gtest/gtest.h>

#include "log_testing.h"
#include "memory_file_system.h"
#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

using testing::make_batch;
using testing::MemoryFileSystem;
using Entries = std::vector<EpochEntry>;

constexpr char kDir[] = "/data/e-0";
const std::string kPath = std::string(kDir) + "/" + LeaderEpochCache::kFileName;

EpochEntry e(int32_t epoch, int64_t start) {
  return EpochEntry{LeaderEpoch(epoch), Offset(start)};
}

std::unique_ptr<LeaderEpochCache> open_cache(MemoryFileSystem& fs) {
  auto cache = LeaderEpochCache::open(fs, kDir);
  EXPECT_TRUE(cache.ok()) << cache.status().to_string();
  return cache.ok() ? std::move(*cache) : nullptr;
}

// (1, 0), (2, 10), (4, 25)
std::unique_ptr<LeaderEpochCache> three(MemoryFileSystem& fs) {
  auto cache = open_cache(fs);
  EXPECT_TRUE(cache->assign(LeaderEpoch(1), Offset(0)).ok());
  EXPECT_TRUE(cache->assign(LeaderEpoch(2), Offset(10)).ok());
  EXPECT_TRUE(cache->assign(LeaderEpoch(4), Offset(25)).ok());
  return cache;
}

TEST(LeaderEpochCache, EmptyWithoutAFile) {
  MemoryFileSystem fs;
  auto cache = open_cache(fs);
  EXPECT_TRUE(cache->entries().empty());
  EXPECT_EQ(cache->latest_epoch(), LeaderEpoch(-1));
  EXPECT_FALSE(fs.exists(kPath));
  EXPECT_EQ(cache->end_offset_for(LeaderEpoch(0), Offset(5)),
            std::make_pair(LeaderEpoch(-1), Offset(-1)));
}

TEST(LeaderEpochCache, AssignFollowsKafka) {
  MemoryFileSystem fs;
  auto cache = three(fs);
  EXPECT_EQ(cache->entries(), (Entries{e(1, 0), e(2, 10), e(4, 25)}));
  EXPECT_EQ(cache->latest_epoch(), LeaderEpoch(4));
  // The latest epoch again, starting later: nothing changes.
  ASSERT_TRUE(cache->assign(LeaderEpoch(4), Offset(30)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(1, 0), e(2, 10), e(4, 25)}));
  // Negative epochs (batches without one) are ignored; a negative start is an error.
  ASSERT_TRUE(cache->assign(LeaderEpoch(-1), Offset(40)).ok());
  EXPECT_EQ(cache->entries().size(), 3u);
  EXPECT_EQ(cache->assign(LeaderEpoch(7), Offset(-2)).code(), ErrorCode::kInvalidArgument);
  // The latest epoch starting earlier moves its start.
  ASSERT_TRUE(cache->assign(LeaderEpoch(4), Offset(20)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(1, 0), e(2, 10), e(4, 20)}));
  // A newer epoch starting before later entries replaces them.
  ASSERT_TRUE(cache->assign(LeaderEpoch(6), Offset(12)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(1, 0), e(2, 10), e(6, 12)}));
  // An older epoch (the log went back to it): newer entries go.
  ASSERT_TRUE(cache->assign(LeaderEpoch(3), Offset(15)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(1, 0), e(2, 10), e(3, 15)}));
  // Persisted every time.
  EXPECT_EQ(open_cache(fs)->entries(), cache->entries());
}

TEST(LeaderEpochCache, EndOffsetFor) {
  MemoryFileSystem fs;
  auto cache = three(fs);
  using P = std::pair<LeaderEpoch, Offset>;
  const Offset end(40);
  EXPECT_EQ(cache->end_offset_for(LeaderEpoch(4), end), P(LeaderEpoch(4), end));
  EXPECT_EQ(cache->end_offset_for(LeaderEpoch(3), end), P(LeaderEpoch(2), Offset(25)));
  EXPECT_EQ(cache->end_offset_for(LeaderEpoch(2), end), P(LeaderEpoch(2), Offset(25)));
  EXPECT_EQ(cache->end_offset_for(LeaderEpoch(1), end), P(LeaderEpoch(1), Offset(10)));
  // Older than every entry: the start of the first (KIP-279).
  EXPECT_EQ(cache->end_offset_for(LeaderEpoch(0), end), P(LeaderEpoch(0), Offset(0)));
  EXPECT_EQ(cache->end_offset_for(LeaderEpoch(5), end), P(LeaderEpoch(-1), Offset(-1)));
  EXPECT_EQ(cache->end_offset_for(LeaderEpoch(-1), end), P(LeaderEpoch(-1), Offset(-1)));
}

TEST(LeaderEpochCache, TruncateFromEnd) {
  MemoryFileSystem fs;
  auto cache = three(fs);
  ASSERT_TRUE(cache->truncate_from_end(Offset(30)).ok());
  EXPECT_EQ(cache->entries().size(), 3u);
  ASSERT_TRUE(cache->truncate_from_end(Offset(25)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(1, 0), e(2, 10)}));
  ASSERT_TRUE(cache->truncate_from_end(Offset(5)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(1, 0)}));
  EXPECT_EQ(open_cache(fs)->entries(), cache->entries());
  ASSERT_TRUE(cache->truncate_from_end(Offset(0)).ok());
  EXPECT_TRUE(cache->entries().empty());
  EXPECT_TRUE(open_cache(fs)->entries().empty());
}

TEST(LeaderEpochCache, TruncateFromStartAndClear) {
  MemoryFileSystem fs;
  auto cache = three(fs);
  ASSERT_TRUE(cache->truncate_from_start(Offset(0)).ok());
  EXPECT_EQ(cache->entries().size(), 3u);
  ASSERT_TRUE(cache->truncate_from_start(Offset(15)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(2, 15), e(4, 25)}));
  ASSERT_TRUE(cache->truncate_from_start(Offset(25)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(4, 25)}));
  ASSERT_TRUE(cache->truncate_from_start(Offset(50)).ok());
  EXPECT_EQ(cache->entries(), (Entries{e(4, 50)}));
  EXPECT_EQ(open_cache(fs)->entries(), cache->entries());
  ASSERT_TRUE(cache->clear().ok());
  EXPECT_TRUE(open_cache(fs)->entries().empty());
}

TEST(LeaderEpochCache, DamagedFileIsRefused) {
  MemoryFileSystem fs;
  three(fs);
  const std::vector<std::byte> good = fs.contents(kPath);
  ASSERT_EQ(good.size(), 18u + 3 * 12);
  auto refused = [&](std::vector<std::byte> bytes, const char* what) {
    fs.set_contents(kPath, std::move(bytes));
    auto cache = LeaderEpochCache::open(fs, kDir);
    EXPECT_FALSE(cache.ok()) << what;
    if (!cache.ok()) {
      EXPECT_EQ(cache.status().code(), ErrorCode::kCorruptMessage) << what;
    }
  };
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::vector<std::byte> flipped = good;
    flipped[i] ^= std::byte{0x10};
    refused(flipped, "flipped byte");
  }
  refused(std::vector<std::byte>(good.begin(), good.end() - 1), "torn");
  refused({}, "empty");
  // A huge count with a matching CRC: refused by size before allocating.
  std::vector<std::byte> huge = good;
  store_be<uint32_t>(huge.data() + 10, 0xffffffffu);
  store_be<uint32_t>(huge.data() + huge.size() - 4, crc32c(std::span(huge).first(huge.size() - 4)));
  refused(huge, "count");
  std::vector<std::byte> version = good;
  store_be<uint16_t>(version.data() + 8, 2);
  store_be<uint32_t>(version.data() + version.size() - 4,
                     crc32c(std::span(version).first(version.size() - 4)));
  refused(version, "version");
  std::vector<std::byte> order = good;  // epochs 1, 2, 4 -> 1, 5, 4
  store_be<int32_t>(order.data() + 14 + 12, 5);
  store_be<uint32_t>(order.data() + order.size() - 4,
                     crc32c(std::span(order).first(order.size() - 4)));
  refused(order, "order");
}

TEST(LeaderEpochCache, PowerLossAtEveryStepOfAnUpdate) {
  for (int64_t step = 0;; ++step) {
    MemoryFileSystem fs;
    auto cache = three(fs);
    fs.faults().ops_until_crash = step;
    const bool done = cache->assign(LeaderEpoch(5), Offset(30)).ok();
    fs.faults().ops_until_crash = -1;
    fs.simulate_power_loss();
    auto reopened = open_cache(fs);
    ASSERT_NE(reopened, nullptr) << step;
    const Entries old{e(1, 0), e(2, 10), e(4, 25)};
    const Entries updated{e(1, 0), e(2, 10), e(4, 25), e(5, 30)};
    if (done) {
      EXPECT_EQ(reopened->entries(), updated) << step;
      return;
    }
    EXPECT_TRUE(reopened->entries() == old || reopened->entries() == updated) << step;
  }
}

// A log whose batches carry epochs 0 (x3), 2 (x2), 5, -1, 5.
std::unique_ptr<PartitionLog> log_with_epochs(MemoryFileSystem& fs) {
  auto log = PartitionLog::open(fs, kDir, testing::small_log_config());
  EXPECT_TRUE(log.ok());
  for (int32_t epoch : {0, 0, 0, 2, 2, 5, -1, 5}) {
    testing::Bytes b = make_batch(2, 300, uint64_t(epoch + 10));
    EXPECT_TRUE((*log)->append(b, LeaderEpoch(epoch)).ok());
  }
  return std::move(*log);
}

TEST(LeaderEpochCache, RebuildFromTheBatches) {
  MemoryFileSystem fs;
  auto log = log_with_epochs(fs);
  auto cache = LeaderEpochCache::rebuild(*log);
  ASSERT_TRUE(cache.ok()) << cache.status().to_string();
  const Entries want{e(0, 0), e(2, 6), e(5, 10)};
  EXPECT_EQ((*cache)->entries(), want);
  EXPECT_EQ(open_cache(fs)->entries(), want);
}

TEST(LeaderEpochCache, OpenOrRebuild) {
  MemoryFileSystem fs;
  auto log = log_with_epochs(fs);
  const Entries want{e(0, 0), e(2, 6), e(5, 10)};
  // Missing while the log has batches.
  auto cache = LeaderEpochCache::open_or_rebuild(*log);
  ASSERT_TRUE(cache.ok());
  EXPECT_EQ((*cache)->entries(), want);
  // Damaged.
  std::vector<std::byte> bytes = fs.contents(kPath);
  bytes[15] ^= std::byte{1};
  fs.set_contents(kPath, bytes);
  cache = LeaderEpochCache::open_or_rebuild(*log);
  ASSERT_TRUE(cache.ok());
  EXPECT_EQ((*cache)->entries(), want);
  // Entries past the log end (a crash between the log's truncation and
  // the file's) are dropped.
  ASSERT_TRUE((*cache)->assign(LeaderEpoch(7), Offset(100)).ok());
  ASSERT_TRUE(log->truncate_to(Offset(8)).ok());
  cache = LeaderEpochCache::open_or_rebuild(*log);
  ASSERT_TRUE(cache.ok());
  EXPECT_EQ((*cache)->entries(), (Entries{e(0, 0), e(2, 6)}));
}

}  // namespace
}  // namespace spillway::storage
