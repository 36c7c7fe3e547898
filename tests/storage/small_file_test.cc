// write_file_atomically and read_file (file_system.h), the way the broker
// keeps topic.meta and committed offsets: on the real disk, and every error
// path through the in-memory file system.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "memory_file_system.h"
#include "spillway/storage/file_system.h"

namespace spillway::storage {
namespace {

using testing::MemoryFileSystem;

constexpr char kPath[] = "/d/topic.meta";

TEST(SmallFile, AtomicWriteReplacesTheFileAndLeavesNoTemp) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("spillway-small-file-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "topic.meta").string();
  FileSystem& fs = posix_file_system();
  ASSERT_TRUE(write_file_atomically(fs, path, "one").ok());
  ASSERT_TRUE(write_file_atomically(fs, path, "two").ok());
  Result<std::string> read = fs.read_file(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, "two");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_EQ(write_file_atomically(fs, (dir / "missing" / "x").string(), "y").code(),
            ErrorCode::kIoError);
  std::filesystem::remove_all(dir);
}

// A file system holding kPath = "old", synced and durable.
class SmallFileFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs_.create_dirs("/d").ok());
    ASSERT_TRUE(write_file_atomically(fs_, kPath, "old").ok());
  }
  std::string read() {
    Result<std::string> text = fs_.read_file(kPath);
    EXPECT_TRUE(text.ok()) << text.status().to_string();
    return text.ok() ? *text : "";
  }
  MemoryFileSystem fs_;
};

TEST_F(SmallFileFaults, ShortWritesStillWriteTheWholeFile) {
  fs_.faults().max_write_chunk = 3;
  ASSERT_TRUE(write_file_atomically(fs_, kPath, "a longer text than one chunk").ok());
  EXPECT_EQ(read(), "a longer text than one chunk");
}

TEST_F(SmallFileFaults, ALongerTempFromAnEarlierAttemptIsCutToTheNewContents) {
  ASSERT_TRUE(write_all(**fs_.open(std::string(kPath) + ".tmp", OpenMode::kCreate),
                        std::as_bytes(std::span(std::string_view("left over by a crash"))), 0)
                  .ok());
  ASSERT_TRUE(write_file_atomically(fs_, kPath, "new").ok());
  EXPECT_EQ(read(), "new");
}

TEST_F(SmallFileFaults, NoSpaceLeavesTheOldFile) {
  fs_.faults().capacity_bytes = fs_.used_bytes() + 2;
  Status st = write_file_atomically(fs_, kPath, "does not fit");
  EXPECT_EQ(st.code(), ErrorCode::kNotEnoughSpace) << st.to_string();
  EXPECT_EQ(read(), "old");
}

TEST_F(SmallFileFaults, AWriteErrorLeavesTheOldFile) {
  fs_.faults().fail_writes = true;
  EXPECT_EQ(write_file_atomically(fs_, kPath, "new").code(), ErrorCode::kIoError);
  fs_.faults().fail_writes = false;
  EXPECT_EQ(read(), "old");
}

TEST_F(SmallFileFaults, AFailedSyncLeavesTheOldFile) {
  fs_.faults().fail_sync = true;
  EXPECT_EQ(write_file_atomically(fs_, kPath, "new").code(), ErrorCode::kIoError);
  fs_.faults().fail_sync = false;
  EXPECT_EQ(read(), "old");
  fs_.simulate_power_loss();
  EXPECT_EQ(read(), "old");
}

TEST_F(SmallFileFaults, AFailedRenameLeavesTheOldFile) {
  fs_.faults().fail_renames = true;
  Status st = write_file_atomically(fs_, kPath, "new");
  EXPECT_EQ(st.code(), ErrorCode::kIoError);
  EXPECT_NE(st.message().find("rename /d/topic.meta.tmp"), std::string_view::npos) << st.message();
  fs_.faults().fail_renames = false;
  EXPECT_EQ(read(), "old");
}

TEST_F(SmallFileFaults, AWrittenFileSurvivesAPowerLoss) {
  ASSERT_TRUE(write_file_atomically(fs_, kPath, "new").ok());
  fs_.simulate_power_loss();
  EXPECT_EQ(read(), "new");
}

TEST_F(SmallFileFaults, ReadingAMissingFileNamesIt) {
  Result<std::string> text = fs_.read_file("/d/none");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), ErrorCode::kIoError);
  EXPECT_NE(text.status().message().find("/d/none: No such file or directory"),
            std::string_view::npos)
      << text.status().message();
}

}  // namespace
}  // namespace spillway::storage
