// Committed offsets: kept per group, reloaded from disk, odd group names;
// failed commits through the in-memory file system; commits on a core's
// sync thread.
#include "core/offset_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "memory_file_system.h"

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
    OffsetStore store(cores_, storage::posix_file_system(), dir_.string());
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
  OffsetStore reloaded(cores_, storage::posix_file_system(), dir_.string());
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.committed("g", "t", 0), 11);
  EXPECT_EQ(reloaded.committed("g", "t", 1), 20);
  EXPECT_EQ(reloaded.committed("weird group/..\n name", "other topic", 3), 5);
  reloaded.forget_topic("t");
  EXPECT_EQ(reloaded.committed("g", "t", 0), -1);
}

TEST_F(OffsetStoreTest, ListsAGroupsOffsetsByTopicAndPartition) {
  OffsetStore store(cores_, storage::posix_file_system(), dir_.string());
  ASSERT_TRUE(store.load().ok());
  EXPECT_TRUE(store.group_offsets("g").empty());
  EXPECT_TRUE(store.groups().empty());
  ASSERT_TRUE(store.commit("g", {{"t", 1, 20}, {"b", 0, 5}, {"t", 0, 10}}).ok());
  ASSERT_TRUE(store.commit("h", {{"t", 0, 99}}).ok());
  const std::vector<OffsetStore::Entry> offsets = store.group_offsets("g");
  ASSERT_EQ(offsets.size(), 3u);
  EXPECT_EQ(offsets[0].topic, "b");
  EXPECT_EQ(offsets[0].offset, 5);
  EXPECT_EQ(offsets[1].topic, "t");
  EXPECT_EQ(offsets[1].partition, 0);
  EXPECT_EQ(offsets[1].offset, 10);
  EXPECT_EQ(offsets[2].partition, 1);
  EXPECT_EQ(offsets[2].offset, 20);
  EXPECT_EQ(store.groups(), (std::vector<std::string>{"g", "h"}));
  // A group whose every topic is gone has nothing left to list.
  store.forget_topic("t");
  EXPECT_EQ(store.groups(), (std::vector<std::string>{"g"}));
}

TEST_F(OffsetStoreTest, ARemovedGroupIsGoneAfterAReload) {
  {
    OffsetStore store(cores_, storage::posix_file_system(), dir_.string());
    ASSERT_TRUE(store.load().ok());
    ASSERT_TRUE(store.commit("gone", {{"t", 0, 10}}).ok());
    ASSERT_TRUE(store.commit("kept", {{"t", 0, 7}}).ok());
    Result<bool> removed = store.remove_group("gone");
    ASSERT_TRUE(removed.ok()) << removed.status().to_string();
    EXPECT_TRUE(*removed);
    EXPECT_EQ(store.committed("gone", "t", 0), -1);
    removed = store.remove_group("never");
    ASSERT_TRUE(removed.ok());
    EXPECT_FALSE(*removed);
  }
  OffsetStore reloaded(cores_, storage::posix_file_system(), dir_.string());
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.committed("gone", "t", 0), -1);
  EXPECT_EQ(reloaded.committed("kept", "t", 0), 7);
}

TEST_F(OffsetStoreTest, AMalformedFileIsAnError) {
  std::filesystem::create_directories(dir_ / "offsets");
  {
    std::FILE* f = std::fopen((dir_ / "offsets" / "67.offsets").c_str(), "w");
    std::fputs("not a line\n", f);
    std::fclose(f);
  }
  OffsetStore store(cores_, storage::posix_file_system(), dir_.string());
  EXPECT_FALSE(store.load().ok());
}

TEST_F(OffsetStoreTest, GroupNamesAreLimitedToWhatAFileNameHolds) {
  OffsetStore store(cores_, storage::posix_file_system(), dir_.string());
  ASSERT_TRUE(store.load().ok());
  const std::string longest(OffsetStore::kMaxGroupNameBytes, 'g');
  ASSERT_TRUE(store.commit(longest, {{"t", 0, 9}}).ok());
  for (size_t length : {OffsetStore::kMaxGroupNameBytes + 1, size_t{122}, size_t{4000}}) {
    Status st = store.commit(std::string(length, 'g'), {{"t", 0, 1}});
    EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument) << length << ": " << st.to_string();
    EXPECT_NE(st.message().find("1 to 121 bytes"), std::string_view::npos) << st.message();
  }
  EXPECT_EQ(store.commit("", {{"t", 0, 1}}).code(), ErrorCode::kInvalidArgument);
  OffsetStore reloaded(cores_, storage::posix_file_system(), dir_.string());
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.committed(longest, "t", 0), 9);
}

class OffsetStoreFiles : public ::testing::Test {
 protected:
  CoreSet cores_{1};
  storage::testing::MemoryFileSystem fs_;
};

TEST_F(OffsetStoreFiles, AFailedCommitKeepsTheOffsetsCommittedBefore) {
  OffsetStore store(cores_, fs_, "/data");
  ASSERT_TRUE(store.load().ok());
  ASSERT_TRUE(store.commit("g", {{"t", 0, 10}}).ok());
  fs_.faults().fail_sync = true;
  EXPECT_EQ(store.commit("g", {{"t", 0, 11}, {"t", 1, 5}}).code(), ErrorCode::kIoError);
  fs_.faults().fail_sync = false;
  fs_.faults().capacity_bytes = 0;  // the disk is full
  EXPECT_EQ(store.commit("g", {{"t", 0, 12}}).code(), ErrorCode::kNotEnoughSpace);
  fs_.faults().capacity_bytes = UINT64_MAX;
  fs_.faults().fail_renames = true;
  EXPECT_EQ(store.commit("g", {{"t", 0, 13}}).code(), ErrorCode::kIoError);
  fs_.faults().fail_renames = false;
  EXPECT_EQ(store.committed("g", "t", 0), 10);
  EXPECT_EQ(store.committed("g", "t", 1), -1);
  // And on disk, even after a power loss.
  fs_.simulate_power_loss();
  OffsetStore reloaded(cores_, fs_, "/data");
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.committed("g", "t", 0), 10);
  EXPECT_EQ(reloaded.committed("g", "t", 1), -1);
}

// commit_async as CommitOffsets uses it: called on a core, the file work on
// that core's sync thread, the answer back on the core.
TEST_F(OffsetStoreFiles, AnAsyncCommitRunsOnTheSyncThreadAndAnswersOnTheCore) {
  OffsetStore store(cores_, fs_, "/data");
  ASSERT_TRUE(store.load().ok());
  CoreSet::Binding core(0);
  asio::io_context& context = cores_.context(0);
  auto commit = [&](std::vector<OffsetStore::Entry> entries) {
    std::optional<Status> done;
    std::thread::id answered_on;
    store.commit_async("g", std::move(entries), context.get_executor(), [&](Status st) {
      done = std::move(st);
      answered_on = std::this_thread::get_id();
    });
    while (!done) context.run_one();
    EXPECT_EQ(answered_on, std::this_thread::get_id());
    return *done;
  };
  EXPECT_TRUE(commit({}).ok());
  EXPECT_FALSE(fs_.exists("/data/offsets/67.offsets")) << "nothing to commit, nothing written";
  fs_.faults().on_sync = [&] { EXPECT_EQ(CoreSet::current(), CoreSet::kNoCore); };
  EXPECT_TRUE(commit({{"t", 0, 7}}).ok());
  EXPECT_TRUE(fs_.exists("/data/offsets/67.offsets"));
  EXPECT_EQ(store.committed("g", "t", 0), 7);
  fs_.faults().fail_sync = true;
  EXPECT_EQ(commit({{"t", 0, 8}}).code(), ErrorCode::kIoError);
  EXPECT_EQ(store.committed("g", "t", 0), 7);
}

}  // namespace
}  // namespace spillway::broker
