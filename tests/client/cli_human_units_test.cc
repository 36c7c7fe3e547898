// topic describe's units (human_units.h) and produce --value-file's reader
// (value_file.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "broker_process.h"
#include "human_units.h"
#include "value_file.h"

namespace spillway::cli {
namespace {

TEST(HumanUnits, DurationsInTheLargestExactUnit) {
  EXPECT_EQ(human_duration_ms(-1), "unlimited");
  EXPECT_EQ(human_duration_ms(0), "0ms");
  EXPECT_EQ(human_duration_ms(604'800'000), "7d");
  EXPECT_EQ(human_duration_ms(3'600'000), "1h");
  EXPECT_EQ(human_duration_ms(5'400'000), "90m");
  EXPECT_EQ(human_duration_ms(30'000), "30s");
  EXPECT_EQ(human_duration_ms(1'500), "1500ms");
}

TEST(HumanUnits, SizesInBinaryUnits) {
  EXPECT_EQ(human_bytes(-1), "unlimited");
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(1'023), "1023 B");
  EXPECT_EQ(human_bytes(1'024), "1 KiB");
  EXPECT_EQ(human_bytes(1'536), "1.5 KiB");
  EXPECT_EQ(human_bytes(int64_t{1} << 30), "1 GiB");
  EXPECT_EQ(human_bytes(123'456'789), "117.7 MiB");
  EXPECT_EQ(human_bytes(int64_t{3} << 50), "3 PiB");
  EXPECT_EQ(human_bytes(int64_t{5} << 60), "5120 PiB");  // no unit above PiB
}

class ValueFile : public ::testing::Test {
 protected:
  std::string write(const std::string& bytes) {
    const std::string path = (dir_.path() / "value").string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  spillway::testing::TempDir dir_;
};

TEST_F(ValueFile, ReadsEveryByte) {
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes += static_cast<char>(b);
  Result<std::vector<std::byte>> read = read_value_file(write(bytes), 256);
  ASSERT_TRUE(read.ok()) << read.status().to_string();
  ASSERT_EQ(read->size(), 256u);
  for (int b = 0; b < 256; ++b) EXPECT_EQ(static_cast<int>((*read)[b]), b);
  read = read_value_file(write(""), 0);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->empty());
}

TEST_F(ValueFile, RefusesAFileOverTheLimitNamingBothSizes) {
  Result<std::vector<std::byte>> read = read_value_file(write(std::string(101, 'x')), 100);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), ErrorCode::kInvalidArgument);
  const std::string message(read.status().message());
  EXPECT_NE(message.find("101 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("100 bytes"), std::string::npos) << message;
}

TEST_F(ValueFile, RefusesWhatIsNotARegularFile) {
  EXPECT_EQ(read_value_file(dir_.path().string(), 100).status().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(read_value_file((dir_.path() / "missing").string(), 100).status().code(),
            ErrorCode::kIoError);
}

}  // namespace
}  // namespace spillway::cli
