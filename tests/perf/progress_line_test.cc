// The progress line's text, and that it stays silent when not on a terminal.
#include "spillway/perf/progress_line.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace spillway::perf {
namespace {

TEST(ProgressLine, FormatsCountRateAndTarget) {
  EXPECT_EQ(format_progress(3, 1'234'567, 412'000, 41'200'000, 2'000'000),
            "[  3 s] 1,234,567 msgs  412,000 msg/s  41.20 MB/s  of 2,000,000");
  EXPECT_EQ(format_progress(12, 5, 5, 5'000'000, 0), "[ 12 s] 5 msgs  5 msg/s  5.00 MB/s");
}

TEST(ProgressLine, SilentWhenNotATerminalAndErasesItsLineWhenForced) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  std::atomic<uint64_t> done{0};
  {
    ProgressLine line(&done, 100, 0, file);  // a file is not a terminal
    EXPECT_FALSE(line.enabled());
  }
  EXPECT_EQ(std::ftell(file), 0);
  {
    ProgressLine line(&done, 100, 0, file, ProgressDisplay::kAlways);
    EXPECT_TRUE(line.enabled());
    line.stop();  // before the first second: nothing was drawn, nothing to erase
    line.stop();  // idempotent
  }
  EXPECT_EQ(std::ftell(file), 0);
  std::fclose(file);
}

}  // namespace
}  // namespace spillway::perf
