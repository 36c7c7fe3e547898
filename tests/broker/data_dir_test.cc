// The data directory lock: created on demand, exclusive while held.
#include "data_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace spillway::broker {
namespace {

TEST(DataDirLock, CreatesTheDirectoryAndLocksItExclusively) {
  const std::string path = ::testing::TempDir() + "/data_dir_test/nested/data";
  std::filesystem::remove_all(::testing::TempDir() + "/data_dir_test");
  {
    Result<DataDirLock> first = DataDirLock::acquire(path);
    ASSERT_TRUE(first.ok()) << first.status().to_string();
    EXPECT_TRUE(std::filesystem::is_directory(path));
    // flock locks belong to the open file description, so a second open in
    // the same process conflicts just as another process would.
    Result<DataDirLock> second = DataDirLock::acquire(path);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(second.status().message().find("in use"), std::string::npos);
  }
  // Released with the first holder.
  EXPECT_TRUE(DataDirLock::acquire(path).ok());
}

TEST(DataDirLock, UncreatableDirectoryIsAnIoError) {
  Result<DataDirLock> lock = DataDirLock::acquire("/proc/self/spillway-cannot-exist");
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), ErrorCode::kIoError);
}

}  // namespace
}  // namespace spillway::broker
