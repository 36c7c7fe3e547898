// Static membership (group.instance.id): a member killed and restarted with
// the same instance id within its session timeout gets its partitions back
// and the group does not rebalance: the other member sees no revoke or
// assign, and keeps committing in the same generation. Each of the two
// members is restarted in turn, so the group's leader is one of them. One
// that does not come back in time is removed at its session timeout (a
// static member never leaves on its own) and the others take over.
#include <gtest/gtest.h>
#include <signal.h>

#include <iostream>

#include "group_test.h"

namespace spillway::testing {
namespace {

// For an eager and a cooperative assignor.
class StaticMembershipTest : public GroupTest, public ::testing::WithParamInterface<std::string> {
 protected:
  // Room for a restart (a process start and a JoinGroup) by default.
  MemberOptions static_member(const std::string& name, int session_timeout_ms = 15'000) const {
    MemberOptions o = member_options(GetParam());
    o.instance_id = "instance-" + name;
    o.session_timeout_ms = session_timeout_ms;
    return o;
  }
};

TEST_P(StaticMembershipTest, ARestartedMemberGetsItsPartitionsBackWithoutARebalance) {
  producer_ = std::make_unique<KeyedProducer>(kafka(), topic_);
  producer_->allow(4'000);
  add_member("a", static_member("a"));
  add_member("b", static_member("b"));
  expect_shares_cover("two static members");
  ASSERT_TRUE(wait_until(kGuard, [&] {
    return member("a").count("CONSUMED") > 0 && member("b").count("CONSUMED") > 0;
  })) << describe_shares(members());
  const auto generation = member("b").generation();
  ASSERT_TRUE(generation.has_value());
  ASSERT_EQ(member("a").generation(), generation);

  int allowed = 4'000;
  for (const auto& [restarted, other] : {std::pair{"a", "b"}, std::pair{"b", "a"}}) {
    SCOPED_TRACE(std::string("restarting ") + restarted);
    const auto share = member(restarted).assignment();
    const auto other_share = member(other).assignment();
    const int64_t killed = member(restarted).stop(SIGKILL);
    restart_member(restarted, static_member(restarted));
    ASSERT_TRUE(wait_until(kGuard, [&] { return member(restarted).assignment().has_value(); }))
        << member(restarted).log();
    EXPECT_EQ(member(restarted).assignment(), share);
    // It rejoined the same generation of the group.
    EXPECT_EQ(member(restarted).generation(), generation);

    // More records, all of them committed: the other member commits them
    // in the generation it joined; had the restart rebalanced the group,
    // those commits would be refused and it would rejoin through a revoke
    // and an assign.
    allowed += 4'000;
    producer_->allow(allowed);
    expect_caught_up();
    EXPECT_EQ(member(other).count("REVOKE", killed), 0u);
    EXPECT_EQ(member(other).count("LOST", killed), 0u);
    EXPECT_EQ(member(other).count("ASSIGN", killed), 0u);
    EXPECT_EQ(member(other).count("COMMIT_FAILED", killed), 0u);
    EXPECT_EQ(member(other).assignment(), other_share);
    EXPECT_EQ(member(other).generation(), generation);
    EXPECT_EQ(member(restarted).assignment(), share);
  }
  expect_nothing_lost();
  expect_described(GetParam());
  const DescribedGroup described = describe_group(kafka(), group_);
  std::set<std::string> instances;
  for (const DescribedMember& m : described.members) instances.insert(m.instance_id);
  EXPECT_EQ(instances, (std::set<std::string>{"instance-a", "instance-b"}));
}

TEST_P(StaticMembershipTest, AMemberThatDoesNotComeBackLosesItsPartitionsAtItsSessionTimeout) {
  producer_ = std::make_unique<KeyedProducer>(kafka(), topic_);
  producer_->allow(4'000);
  add_member("a", static_member("a", 6'000));
  add_member("b", static_member("b", 6'000));
  expect_shares_cover("two static members");
  const std::set<int32_t> b_share = member("b").assignment().value_or(std::set<int32_t>{});

  const int64_t killed = member("b").stop(SIGKILL);
  producer_->allow(8'000);
  expect_shares_cover("b is gone");  // a alone has every partition
  const int64_t resumed = wait_consumed_again(b_share, killed);
  if (resumed >= 0) {
    std::cout << "REBALANCE_TIME after SIGKILL of a static member (session.timeout.ms=6000): "
              << resumed - killed << " ms\n";
  }
  // Back later with the same instance id: a new member, and a rebalance.
  restart_member("b", static_member("b", 6'000));
  producer_->allow(12'000);
  expect_shares_cover("b is back");
  expect_nothing_lost();
  expect_described(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Assignors, StaticMembershipTest,
                         ::testing::Values("range", "cooperative-sticky"), [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace spillway::testing
