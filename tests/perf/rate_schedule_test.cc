// RateSchedule: intended times, their inverse, and how senders share them.
#include "spillway/perf/rate_schedule.h"

#include <gtest/gtest.h>

#include <set>

namespace spillway::perf {
namespace {

TEST(RateSchedule, IntendedTimesAreStartPlusIndexOverRate) {
  const RateSchedule s(5'000, 20'000);  // 50 µs apart
  EXPECT_EQ(s.intended_ns(0), 5'000u);
  EXPECT_EQ(s.intended_ns(1), 55'000u);
  EXPECT_EQ(s.intended_ns(20'000), 5'000u + 1'000'000'000u);
  // A rate that does not divide a second: floor of the exact value.
  const RateSchedule third(0, 3);
  EXPECT_EQ(third.intended_ns(1), 333'333'333u);
  EXPECT_EQ(third.intended_ns(2), 666'666'666u);
  EXPECT_EQ(third.intended_ns(3), 1'000'000'000u);
}

TEST(RateSchedule, HugeIndexDoesNotOverflow) {
  // k * 1e9 overflows 64 bits past k = 1.8e10; the schedule must not.
  const RateSchedule s(0, 1'000'000);
  const uint64_t k = 100'000'000'000ull;  // 100k seconds of messages
  EXPECT_EQ(s.intended_ns(k), 100'000ull * 1'000'000'000ull);
}

TEST(RateSchedule, DueByIsTheInverseOfIntended) {
  // due_by(t) = n exactly when messages 0..n-1 are due at t and message n is not.
  for (uint64_t rate : {1ull, 3ull, 7'919ull, 20'000ull, 1'000'000ull, 3'000'000'000ull}) {
    const RateSchedule s(1'000, rate);
    for (uint64_t k = 0; k < 2'000; k += 13) {
      for (uint64_t t : {s.intended_ns(k), s.intended_ns(k) + 1, s.intended_ns(k + 1) - 1}) {
        if (t < s.start_ns()) continue;
        const uint64_t n = s.due_by(t);
        ASSERT_GE(n, 1u);
        EXPECT_LE(s.intended_ns(n - 1), t) << "rate " << rate << " t " << t;
        EXPECT_GT(s.intended_ns(n), t) << "rate " << rate << " t " << t;
      }
    }
  }
  EXPECT_EQ(RateSchedule(1'000, 10).due_by(999), 0u);
  EXPECT_EQ(RateSchedule(1'000, 10).due_by(1'000), 1u);
}

TEST(RateSchedule, SendersPartitionTheMessagesExactlyOnce) {
  constexpr uint32_t kSenders = 3;
  std::set<uint64_t> seen;
  for (uint32_t sender = 0; sender < kSenders; ++sender) {
    for (uint64_t n = 0; n < 100; ++n) {
      EXPECT_TRUE(seen.insert(RateSchedule::message_of_sender(n, sender, kSenders)).second);
    }
  }
  EXPECT_EQ(seen.size(), 300u);
  EXPECT_EQ(*seen.rbegin(), 299u);
}

TEST(RateSchedule, WaitUntilDoesNotReturnEarly) {
  const uint64_t target = now_ns() + 2'000'000;
  wait_until_ns(target);
  EXPECT_GE(now_ns(), target);
  // A time in the past returns at once (a late sender must catch up).
  const uint64_t before = now_ns();
  wait_until_ns(before - 1'000'000);
  EXPECT_GE(now_ns(), before);
}

}  // namespace
}  // namespace spillway::perf
