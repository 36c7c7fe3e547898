// BufferPool: size classes, reuse without zeroing, limits, bounded retention,
// cross-thread returns, and the checks on bad returns.
#include "spillway/common/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace spillway {
namespace {

TEST(BufferPool, RentsTheSmallestFittingClass) {
  BufferPool pool;
  for (std::size_t n : {std::size_t{1}, std::size_t{4096}, std::size_t{4097}, std::size_t{300000},
                        BufferPool::kMaxBufferSize}) {
    auto b = pool.rent(n);
    ASSERT_FALSE(b.empty()) << n;
    EXPECT_GE(b.size(), n);
    EXPECT_EQ(b.size(), BufferPool::kClassSizes[BufferPool::class_for(n)]);
    EXPECT_EQ(pool.outstanding_bytes(), b.size());
    pool.give_back(b.data());
    EXPECT_EQ(pool.outstanding_bytes(), 0u);
  }
  EXPECT_TRUE(pool.rent(BufferPool::kMaxBufferSize + 1).empty());
  EXPECT_EQ(pool.outstanding_bytes(), 0u);
}

TEST(BufferPool, ReusesWithoutZeroing) {
  BufferPool pool;
  auto a = pool.rent(100);
  std::memset(a.data(), 0xAB, a.size());
  std::byte* first = a.data();
  pool.give_back(first);
  auto b = pool.rent(200);  // same class
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(b[0], std::byte{0xAB});
  EXPECT_EQ(b[b.size() - 1], std::byte{0xAB});
  pool.give_back(b.data());
}

TEST(BufferPool, RefusesPastTheOutstandingLimit) {
  BufferPool::Options o;
  o.max_outstanding_bytes = 8192;
  BufferPool pool(o);
  auto a = pool.rent(1);
  auto b = pool.rent(1);
  EXPECT_FALSE(a.empty());
  EXPECT_FALSE(b.empty());
  EXPECT_TRUE(pool.rent(1).empty());
  EXPECT_TRUE(pool.rent(5000).empty());
  pool.give_back(a.data());
  auto c = pool.rent(1);
  EXPECT_FALSE(c.empty());
  pool.give_back(b.data());
  pool.give_back(c.data());
  EXPECT_EQ(pool.outstanding_bytes(), 0u);
}

TEST(BufferPool, RetentionIsBounded) {
  BufferPool::Options o;
  o.max_retained_bytes = 3 * 4096;
  BufferPool pool(o);
  std::vector<std::byte*> held;
  for (int i = 0; i < 64; ++i) held.push_back(pool.rent(1).data());
  for (std::byte* p : held) pool.give_back(p);
  // The thread cache keeps a fixed few; the shared list keeps at most the cap.
  EXPECT_LE(pool.retained_bytes(), o.max_retained_bytes);
  EXPECT_GT(pool.retained_bytes(), 0u);
}

TEST(BufferPool, AcceptsReturnsFromOtherThreads) {
  BufferPool pool;
  std::vector<std::byte*> held;
  for (int i = 0; i < 40; ++i) held.push_back(pool.rent(20000).data());
  std::thread t([&] {
    for (std::byte* p : held) pool.give_back(p);
  });
  t.join();
  EXPECT_EQ(pool.outstanding_bytes(), 0u);
  // The other thread's cache went back to the shared list when it exited.
  EXPECT_GT(pool.retained_bytes(), 0u);
  auto again = pool.rent(20000);
  EXPECT_FALSE(again.empty());
  pool.give_back(again.data());
}

TEST(BufferPool, SwitchingPoolsOnAThreadKeepsBuffersApart) {
  BufferPool a, b;
  auto x = a.rent(1);
  auto y = b.rent(1);
  a.give_back(x.data());
  b.give_back(y.data());  // rebinds this thread's cache to b, flushing a's
  EXPECT_EQ(a.retained_bytes(), 4096u);
  auto z = a.rent(1);
  EXPECT_EQ(z.data(), x.data());
  a.give_back(z.data());
}

using BufferPoolDeathTest = ::testing::Test;

TEST_F(BufferPoolDeathTest, DoubleReturnIsCaught) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  BufferPool::Options o;
  o.check_returns = true;
  EXPECT_DEATH(
      {
        BufferPool pool(o);
        auto a = pool.rent(1);
        pool.give_back(a.data());
        pool.give_back(a.data());
      },
      "already returned");
}

TEST_F(BufferPoolDeathTest, ForeignBufferIsCaught) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  BufferPool::Options o;
  o.check_returns = true;
  EXPECT_DEATH(
      {
        BufferPool pool(o);
        BufferPool other(o);
        auto a = other.rent(1);
        pool.give_back(a.data());
      },
      "did not rent");
  EXPECT_DEATH(
      {
        BufferPool pool(o);
        std::vector<std::byte> mine(256, std::byte{0x11});
        pool.give_back(mine.data() + 128);
      },
      "did not rent");
}

}  // namespace
}  // namespace spillway
