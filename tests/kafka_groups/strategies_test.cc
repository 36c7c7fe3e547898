// librdkafka consumers in one group, for each assignment strategy (run on
// the leader client, as in Kafka): two share a 6-partition topic, a third
// joins and the shares rebalance, one is SIGKILLed and the others take over
// its partitions after the session timeout; keyed records are produced
// throughout, and at the end every record was processed and committed.
#include <gtest/gtest.h>
#include <signal.h>

#include <iostream>

#include "group_test.h"

namespace spillway::testing {
namespace {

class StrategiesTest : public GroupTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(StrategiesTest, MembersShareRebalanceAndTakeOverWithoutLosingRecords) {
  const std::string strategy = GetParam();
  producer_ = std::make_unique<KeyedProducer>(kafka(), topic_);
  // Each phase below gets its burst of records, and records trickle in
  // between (while members join, revoke, die and take over).
  producer_->allow(2'000);
  producer_->trickle(1'500, kRecords);
  MemberOptions options = member_options(strategy);
  // Slow enough that a member dies or gives partitions up in mid-batch.
  options.process_us = 200;

  add_member("a", options);
  add_member("b", options);
  expect_shares_cover("two members");
  producer_->allow(7'000);

  add_member("c", options);
  expect_shares_cover("a third member joined");
  producer_->allow(12'000);
  // Every member processed something before one of them dies.
  ASSERT_TRUE(wait_until(kGuard, [&] {
    return member("a").count("CONSUMED") > 0 && member("b").count("CONSUMED") > 0 &&
           member("c").count("CONSUMED") > 0;
  })) << describe_shares(members());

  const std::set<int32_t> victim = member("b").assignment().value_or(std::set<int32_t>{});
  const int64_t killed = member("b").stop(SIGKILL);
  // Records for the victim's partitions wait for their new owners.
  producer_->allow(15'000);
  expect_shares_cover("b was killed");
  const int64_t resumed = wait_consumed_again(victim, killed);
  if (resumed >= 0) {
    std::cout << "REBALANCE_TIME after SIGKILL (" << strategy
              << ", session.timeout.ms=6000, heartbeat.interval.ms=1000): " << resumed - killed
              << " ms\n";
  }
  expect_nothing_lost();
  expect_described(strategy);
}

// Members offering different assignors: the group takes one that every
// member offers (the protocol vote), whatever each one prefers. (librdkafka
// does not let one member offer both eager and cooperative assignors.)
TEST_F(GroupTest, TheGroupUsesTheAssignorEveryMemberOffers) {
  producer_ = std::make_unique<KeyedProducer>(kafka(), topic_);
  producer_->allow(2'000);
  add_member("a", member_options("roundrobin,range"));
  add_member("b", member_options("range"));
  expect_shares_cover("two members");
  expect_nothing_lost();
  expect_described("range");
}

INSTANTIATE_TEST_SUITE_P(Strategies, StrategiesTest,
                         ::testing::Values("range", "roundrobin", "cooperative-sticky"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace spillway::testing
