// OffsetIndex: lookups, truncation, and the file image.
#include "spillway/storage/offset_index.h"

#include <gtest/gtest.h>

#include "memory_file_system.h"

namespace spillway::storage {
namespace {

using testing::MemoryFileSystem;

TEST(OffsetIndex, LookupFindsGreatestEntryAtOrBelow) {
  OffsetIndex index(100);
  EXPECT_EQ(index.lookup(150).position, 0u);
  index.add(110, 1000);
  index.add(120, 2000);
  index.add(130, 3000);
  EXPECT_EQ(index.lookup(99).position, 0u);
  EXPECT_EQ(index.lookup(100).position, 0u);
  EXPECT_EQ(index.lookup(109).position, 0u);
  EXPECT_EQ(index.lookup(110).position, 1000u);
  EXPECT_EQ(index.lookup(119).offset, 110);
  EXPECT_EQ(index.lookup(125).position, 2000u);
  EXPECT_EQ(index.lookup(1'000'000).position, 3000u);
  index.truncate_to(2000);
  EXPECT_EQ(index.entry_count(), 1u);
  EXPECT_EQ(index.lookup(125).position, 1000u);
}

TEST(OffsetIndex, PersistsAndLoadsItsFileImage) {
  MemoryFileSystem fs;
  auto file = fs.open("/i", OpenMode::kCreate);
  ASSERT_TRUE(file.ok());
  OffsetIndex index(1000);
  index.add(1005, 4096);
  index.add(1100, 9000);
  ASSERT_TRUE(index.persist(**file).ok());
  index.add(1200, 20000);
  ASSERT_TRUE(index.persist(**file).ok());
  auto bytes = fs.contents("/i");
  ASSERT_EQ(bytes.size(), 24u);
  // Big-endian relative offset 5, position 4096.
  EXPECT_EQ(bytes[3], std::byte{5});
  EXPECT_EQ(bytes[6], std::byte{0x10});
  OffsetIndex loaded(1000);
  ASSERT_TRUE(loaded.load(**file, 30000).ok());
  EXPECT_EQ(loaded.entry_count(), 3u);
  EXPECT_EQ(loaded.lookup(1150).position, 9000u);
  // Dropped entries leave the file too on the next persist.
  loaded.truncate_to(9000);
  ASSERT_TRUE(loaded.persist(**file).ok());
  EXPECT_EQ(fs.contents("/i").size(), 8u);
}

TEST(OffsetIndex, LoadRejectsBrokenFiles) {
  MemoryFileSystem fs;
  auto file = fs.open("/i", OpenMode::kCreate);
  OffsetIndex index(0);
  index.add(5, 100);
  index.add(9, 200);
  ASSERT_TRUE(index.persist(**file).ok());
  OffsetIndex loaded(0);
  EXPECT_EQ(loaded.load(**file, 150).code(), ErrorCode::kCorruptMessage);  // past the log
  EXPECT_EQ(loaded.entry_count(), 0u);
  auto bytes = fs.contents("/i");
  std::swap_ranges(bytes.begin(), bytes.begin() + 8, bytes.begin() + 8);  // out of order
  fs.set_contents("/i", bytes);
  EXPECT_EQ(loaded.load(**file, 1000).code(), ErrorCode::kCorruptMessage);
  bytes.pop_back();  // not a multiple of 8
  fs.set_contents("/i", bytes);
  EXPECT_EQ(loaded.load(**file, 1000).code(), ErrorCode::kCorruptMessage);
}

}  // namespace
}  // namespace spillway::storage
