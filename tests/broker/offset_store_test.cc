// Committed offsets: kept per group, reloaded from disk, odd group names.
#include "core/offset_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace spillway::broker {
namespace {

class OffsetStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("spillway-offsets-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  CoreSet cores_{1};
  std::filesystem::path dir_;
};

TEST_F(OffsetStoreTest, CommitsAreKeptAndReloaded) {
  {
    OffsetStore store(cores_, dir_.string());
    ASSERT_TRUE(store.load().ok());
    EXPECT_EQ(store.committed("g", "t", 0), -1);
    ASSERT_TRUE(store.commit("g", {{"t", 0, 10}, {"t", 1, 20}}).ok());
    ASSERT_TRUE(store.commit("g", {{"t", 0, 11}}).ok());
    ASSERT_TRUE(store.commit("weird group/..\n name", {{"other topic", 3, 5}}).ok());
    EXPECT_EQ(store.committed("g", "t", 0), 11);
    EXPECT_EQ(store.committed("g", "t", 1), 20);
    EXPECT_EQ(store.committed("g", "t", 2), -1);
    EXPECT_EQ(store.committed("h", "t", 0), -1);
  }
  OffsetStore reloaded(cores_, dir_.string());
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.committed("g", "t", 0), 11);
  EXPECT_EQ(reloaded.committed("g", "t", 1), 20);
  EXPECT_EQ(reloaded.committed("weird group/..\n name", "other topic", 3), 5);
  reloaded.forget_topic("t");
  EXPECT_EQ(reloaded.committed("g", "t", 0), -1);
}

TEST_F(OffsetStoreTest, AMalformedFileIsAnError) {
  std::filesystem::create_directories(dir_ / "offsets");
  {
    std::FILE* f = std::fopen((dir_ / "offsets" / "67.offsets").c_str(), "w");
    std::fputs("not a line\n", f);
    std::fclose(f);
  }
  OffsetStore store(cores_, dir_.string());
  EXPECT_FALSE(store.load().ok());
}

TEST_F(OffsetStoreTest, GroupNamesAreLimitedToWhatAFileNameHolds) {
  OffsetStore store(cores_, dir_.string());
  ASSERT_TRUE(store.load().ok());
  const std::string longest(OffsetStore::kMaxGroupNameBytes, 'g');
  ASSERT_TRUE(store.commit(longest, {{"t", 0, 9}}).ok());
  for (size_t length : {OffsetStore::kMaxGroupNameBytes + 1, size_t{122}, size_t{4000}}) {
    Status st = store.commit(std::string(length, 'g'), {{"t", 0, 1}});
    EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument) << length << ": " << st.to_string();
    EXPECT_NE(st.message().find("1 to 121 bytes"), std::string_view::npos) << st.message();
  }
  EXPECT_EQ(store.commit("", {{"t", 0, 1}}).code(), ErrorCode::kInvalidArgument);
  OffsetStore reloaded(cores_, dir_.string());
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.committed(longest, "t", 0), 9);
}

}  // namespace
}  // namespace spillway::broker
