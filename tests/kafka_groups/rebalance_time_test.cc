// Measures (prints, never asserts) how long a group takes to consume a lost
// member's partitions again, with the default timeouts of the broker and of
// librdkafka 2.0 (session.timeout.ms=45000, heartbeat.interval.ms=3000):
// from a member's SIGKILL (the coordinator waits out its session), and from
// a clean close (LeaveGroup: the others learn of the rebalance on their next
// heartbeat). Both times run from the signal to the moment the survivors
// have consumed a record of every partition the member had. It is in its own
// binary with the ctest label "slow" (about a minute: the session timeout).
#include <gtest/gtest.h>
#include <signal.h>

#include <iostream>

#include "group_test.h"

namespace spillway::testing {
namespace {

class RebalanceTimeTest : public GroupTest {
 protected:
  void SetUp() override {
    start_broker(/*same_ports=*/false, /*group_defaults=*/true);
    if (HasFatalFailure()) return;
    create_topic();
  }

  MemberOptions default_member() const {
    MemberOptions o = member_options("range");
    o.session_timeout_ms.reset();
    o.heartbeat_ms.reset();
    return o;
  }
};

TEST_F(RebalanceTimeTest, FromSigkillAndFromCleanCloseWithDefaultTimeouts) {
  producer_ = std::make_unique<KeyedProducer>(kafka(), topic_);
  producer_->allow(3'000);
  add_member("a", default_member());
  add_member("b", default_member());
  add_member("c", default_member());
  expect_shares_cover("three members");
  ASSERT_TRUE(wait_until(kGuard, [&] {
    return member("a").count("CONSUMED") > 0 && member("b").count("CONSUMED") > 0 &&
           member("c").count("CONSUMED") > 0;
  })) << describe_shares(members());

  const std::set<int32_t> killed_share = member("c").assignment().value_or(std::set<int32_t>{});
  const int64_t killed = member("c").stop(SIGKILL);
  producer_->allow(8'000);
  const int64_t after_kill = wait_consumed_again(killed_share, killed, kLongGuard);
  if (after_kill >= 0) {
    std::cout << "REBALANCE_TIME after SIGKILL: " << after_kill - killed
              << " ms (defaults: session.timeout.ms=45000, heartbeat.interval.ms=3000, range)\n";
  }
  expect_shares_cover("c was killed");

  const std::set<int32_t> closed_share = member("b").assignment().value_or(std::set<int32_t>{});
  const int64_t closed = member("b").stop(SIGTERM);
  producer_->allow(13'000);
  const int64_t after_close = wait_consumed_again(closed_share, closed);
  if (after_close >= 0) {
    std::cout << "REBALANCE_TIME after clean close (LeaveGroup): " << after_close - closed
              << " ms (defaults: heartbeat.interval.ms=3000, range)\n";
  }
  expect_nothing_lost();
}

}  // namespace
}  // namespace spillway::testing
