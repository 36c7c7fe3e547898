// ProducerIds over the in-memory file system: blocks recorded before their
// ids are handed out, a restart starting after the recorded block, a failed
// write handing out nothing, and a damaged file refused.
#include "core/producer_ids.h"

#include <gtest/gtest.h>

#include <set>

#include "memory_file_system.h"

namespace spillway::broker {
namespace {

using storage::testing::MemoryFileSystem;

constexpr char kDataDir[] = "/data";

std::unique_ptr<ProducerIds> open(MemoryFileSystem& fs) {
  EXPECT_TRUE(fs.create_dirs(kDataDir).ok());
  auto ids = ProducerIds::open(fs, kDataDir);
  EXPECT_TRUE(ids.ok()) << ids.status().to_string();
  return ids.ok() ? std::move(*ids) : nullptr;
}

TEST(ProducerIdsTest, IdsAreReservedInBlocksAndNeverReusedAfterARestart) {
  MemoryFileSystem fs;
  auto ids = open(fs);
  for (int64_t i = 0; i < ProducerIds::kBlockSize + 2; ++i) {
    Result<int64_t> id = ids->allocate();
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(*id, i);
  }
  Result<std::string> recorded = fs.read_file("/data/producer_ids");
  ASSERT_TRUE(recorded.ok());
  EXPECT_EQ(*recorded, std::to_string(2 * ProducerIds::kBlockSize) + "\n");
  // A crash (or a clean stop) here: the next start begins after the block.
  ids = open(fs);
  Result<int64_t> next = ids->allocate();
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, 2 * ProducerIds::kBlockSize);
}

TEST(ProducerIdsTest, AReservationThatCannotBeWrittenHandsOutNothing) {
  MemoryFileSystem fs;
  auto ids = open(fs);
  fs.faults().fail_renames = true;
  EXPECT_FALSE(ids->allocate().ok());
  fs.faults().fail_renames = false;
  Result<int64_t> id = ids->allocate();
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, 0);
}

TEST(ProducerIdsTest, AFileWithoutANumberIsRefused) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.create_dirs(kDataDir).ok());
  for (const char* text : {"", "abc\n", "-5\n", "12x\n"}) {
    const std::string s(text);
    fs.set_contents(
        "/data/producer_ids",
        std::vector<std::byte>(reinterpret_cast<const std::byte*>(s.data()),
                               reinterpret_cast<const std::byte*>(s.data()) + s.size()));
    auto ids = ProducerIds::open(fs, kDataDir);
    ASSERT_FALSE(ids.ok()) << text;
    EXPECT_EQ(ids.status().code(), ErrorCode::kCorruptMessage);
  }
}

// Every broker of a cluster hands out ids from its own data directory: both
// counters start at 0, and two producers that initialised through different
// brokers got the same id (a partition then takes one producer's batch for
// the other's retry). The node id keeps them apart.
TEST(ProducerIdsTest, BrokersOfAClusterNeverHandOutTheSameId) {
  MemoryFileSystem one;
  MemoryFileSystem two;
  ASSERT_TRUE(one.create_dirs(kDataDir).ok());
  ASSERT_TRUE(two.create_dirs(kDataDir).ok());
  auto a = ProducerIds::open(one, kDataDir, 1);
  auto b = ProducerIds::open(two, kDataDir, 2);
  ASSERT_TRUE(a.ok() && b.ok());
  std::set<int64_t> seen;
  for (int i = 0; i < 10; ++i) {
    Result<int64_t> x = (*a)->allocate();
    Result<int64_t> y = (*b)->allocate();
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_GE(*x, 0);
    EXPECT_GE(*y, 0);
    EXPECT_TRUE(seen.insert(*x).second);
    EXPECT_TRUE(seen.insert(*y).second);
  }
  EXPECT_EQ(ProducerIds::open(one, kDataDir, ProducerIds::kMaxNodeId + 1).status().code(),
            ErrorCode::kInvalidArgument);
  auto largest = ProducerIds::open(one, kDataDir, ProducerIds::kMaxNodeId);
  ASSERT_TRUE(largest.ok());
  Result<int64_t> id = (*largest)->allocate();
  ASSERT_TRUE(id.ok());
  EXPECT_GE(*id, 0);
}

}  // namespace
}  // namespace spillway::broker
