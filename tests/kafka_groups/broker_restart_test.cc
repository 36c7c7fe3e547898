// The broker killed (SIGKILL) in the middle of a rebalance, a third member
// joining, and restarted on the same ports and data directory: every member
// rejoins, consumption continues from the committed offsets (not from the
// start of the log), and at the end nothing is lost. The same with a clean
// stop (SIGTERM), which answers the parked joins before it exits.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "group_test.h"

namespace spillway::testing {
namespace {

class BrokerRestartTest : public GroupTest, public ::testing::WithParamInterface<int> {};

TEST_P(BrokerRestartTest, MembersRejoinAndContinueFromCommittedOffsets) {
  // An eager strategy: the revoke callbacks show a rebalance has begun.
  const std::string strategy = "range";
  producer_ = std::make_unique<KeyedProducer>(kafka(), topic_);
  producer_->allow(4'000);
  // a is slow to give its partitions up (3 s in its revoke callback): the
  // rebalance that c's join starts waits for a's JoinGroup meanwhile, and
  // that is when the broker dies.
  MemberOptions options = member_options(strategy);
  options.process_us = 200;
  MemberOptions slow = options;
  slow.revoke_delay_ms = 3'000;
  add_member("a", slow);
  add_member("b", options);
  expect_shares_cover("two members");
  // Everything so far committed, so the check below has offsets to go by.
  ASSERT_TRUE(producer_->wait_delivered(kGuard));
  ASSERT_TRUE(wait_until(kGuard, [&] {
    return committed_offsets(kafka(), group_, topic_, kPartitions) ==
           log_end_offsets(kafka(), topic_, kPartitions);
  }));
  const std::vector<int64_t> committed = committed_offsets(kafka(), group_, topic_, kPartitions);
  producer_->allow(8'000);
  producer_->trickle(1'000, kRecords);  // also while the broker is down

  const int64_t joining = now_ms();
  add_member("c", options);
  ASSERT_TRUE(wait_until(kGuard, [&] { return member("a").count("REVOKE", joining) > 0; }))
      << describe_shares(members());
  // Still in a's revoke callback: the group is still rebalancing.
  ASSERT_EQ(member("a").count("ASSIGN", joining), 0u);
  ASSERT_TRUE(broker_->stop(GetParam()).ok());
  const int64_t restarted = now_ms();
  start_broker(/*same_ports=*/true);
  ASSERT_FALSE(HasFatalFailure());

  expect_shares_cover("after the broker's restart");
  // Every partition's records consumed after the restart are at or past
  // the offset committed before it: the members went on from their
  // commits, not from the start of the log.
  std::map<int32_t, int64_t> first_offset;  // the lowest one per partition
  ASSERT_TRUE(wait_until(kGuard, [&] {
    for (const MemberProcess* m : members()) {
      for (const MemberEvent& e : m->events()) {
        if (e.kind != "CONSUMED" || e.ms < restarted) continue;
        std::istringstream fields(e.rest);
        int32_t p = -1;
        int64_t offset = -1;
        fields >> p >> offset;
        auto [it, added] = first_offset.emplace(p, offset);
        if (!added) it->second = std::min(it->second, offset);
      }
    }
    return first_offset.size() == static_cast<size_t>(kPartitions);
  })) << describe_shares(members());
  for (const auto& [p, offset] : first_offset) {
    EXPECT_GE(offset, committed[static_cast<size_t>(p)]) << "partition " << p;
  }
  expect_nothing_lost();
  expect_described(strategy);
  // All three in the same generation, a later one than before the kill.
  const auto generation = member("c").generation();
  ASSERT_TRUE(generation.has_value());
  EXPECT_EQ(member("a").generation(), generation);
  EXPECT_EQ(member("b").generation(), generation);
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_GT(member(name).count("ASSIGN", restarted), 0u) << name << " did not rejoin";
  }
}

INSTANTIATE_TEST_SUITE_P(StoppedInARebalance, BrokerRestartTest,
                         ::testing::Values(SIGKILL, SIGTERM),
                         [](const auto& info) { return info.param == SIGKILL ? "kill9" : "term"; });

}  // namespace
}  // namespace spillway::testing
