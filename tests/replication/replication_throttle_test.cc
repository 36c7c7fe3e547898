// ReplicationThrottle: the reassignment token bucket on a fake clock.
#include "replication/replication_throttle.h"

#include <gtest/gtest.h>

#include <limits>

namespace spillway::broker::replication {
namespace {

using Clock = ReplicationThrottle::Clock;

struct FakeClock {
  Clock::time_point now{};
  void advance_ms(int64_t ms) { now += std::chrono::milliseconds(ms); }
};

TEST(ReplicationThrottle, OffUntilARateIsSet) {
  FakeClock clock;
  ReplicationThrottle t([&] { return clock.now; });
  EXPECT_EQ(t.available(), std::numeric_limits<uint64_t>::max());
  t.charge(100);  // counted, nothing to take from
  EXPECT_EQ(t.throttled_bytes(), 100u);
  EXPECT_EQ(t.available(), std::numeric_limits<uint64_t>::max());
}

TEST(ReplicationThrottle, GrantsTheRateAndWaitsOutDebt) {
  FakeClock clock;
  ReplicationThrottle t([&] { return clock.now; });
  t.set_rate(1000);
  EXPECT_EQ(t.rate(), 1000u);
  EXPECT_EQ(t.available(), 1000u);  // a full bucket at first
  t.charge(3000);                   // a first batch sent whole: 2000 in debt
  EXPECT_EQ(t.available(), 0u);
  clock.advance_ms(1500);
  EXPECT_EQ(t.available(), 0u);  // 500 still owed
  clock.advance_ms(1000);
  EXPECT_EQ(t.available(), 500u);
  clock.advance_ms(10'000);
  EXPECT_EQ(t.available(), 1000u);  // at most one second's worth
  EXPECT_EQ(t.throttled_bytes(), 3000u);
}

TEST(ReplicationThrottle, ANewRateKeepsTheLevelUpToTheNewCapacity) {
  FakeClock clock;
  ReplicationThrottle t([&] { return clock.now; });
  t.set_rate(1000);
  t.charge(400);
  t.set_rate(1000);  // unchanged: nothing happens
  EXPECT_EQ(t.available(), 600u);
  t.set_rate(100);
  EXPECT_EQ(t.available(), 100u);
  t.set_rate(0);
  EXPECT_EQ(t.available(), std::numeric_limits<uint64_t>::max());
  t.set_rate(50);  // on again: full
  EXPECT_EQ(t.available(), 50u);
}

TEST(ReplicationThrottle, CountsHeldReadsAndMoves) {
  ReplicationThrottle t;
  t.count_held();
  t.count_held();
  t.set_ongoing(3);
  EXPECT_EQ(t.held(), 2u);
  EXPECT_EQ(t.ongoing(), 3u);
}

}  // namespace
}  // namespace spillway::broker::replication
