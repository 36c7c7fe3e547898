// Static membership (group.instance.id): a member killed and restarted with
// the same instance id within its session timeout gets its partitions back
// and the group does not rebalance: the other member sees no revoke or
// assign, and keeps committing in the same generation.
#include <gtest/gtest.h>
#include <signal.h>

#include "group_test.h"

namespace spillway::testing {
namespace {

class StaticMembershipTest : public GroupTest {
 protected:
  MemberOptions static_member(const std::string& instance) const {
    MemberOptions o = member_options("range");
    o.instance_id = instance;
    // Room for the restart (a process start and a JoinGroup).
    o.session_timeout_ms = 15'000;
    return o;
  }
};

TEST_F(StaticMembershipTest, ARestartedMemberGetsItsPartitionsBackWithoutARebalance) {
  producer_ = std::make_unique<KeyedProducer>(kafka(), topic_);
  producer_->allow(4'000);
  add_member("a", static_member("instance-a"));
  add_member("b", static_member("instance-b"));
  expect_shares_cover("two static members");
  ASSERT_TRUE(wait_until(kGuard, [&] {
    return member("a").count("CONSUMED") > 0 && member("b").count("CONSUMED") > 0;
  })) << describe_shares(members());
  const auto a_share = member("a").assignment();
  const auto b_share = member("b").assignment();
  ASSERT_TRUE(a_share && b_share);
  const auto generation = member("b").generation();
  ASSERT_TRUE(generation.has_value());
  EXPECT_EQ(member("a").generation(), generation);

  const int64_t killed = member("a").stop(SIGKILL);
  restart_member("a", static_member("instance-a"));
  ASSERT_TRUE(wait_until(kGuard, [&] { return member("a").assignment().has_value(); }))
      << member("a").log();
  EXPECT_EQ(member("a").assignment(), a_share);
  // It rejoined the same generation of the group.
  EXPECT_EQ(member("a").generation(), generation);

  // The rest of the records, all of them committed: b commits them in the
  // generation it joined; had the restart rebalanced the group, those
  // commits would be refused and b would rejoin through a revoke and an
  // assign.
  expect_nothing_lost();
  EXPECT_EQ(member("b").count("REVOKE", killed), 0u);
  EXPECT_EQ(member("b").count("LOST", killed), 0u);
  EXPECT_EQ(member("b").count("ASSIGN", killed), 0u);
  EXPECT_EQ(member("b").count("COMMIT_FAILED", killed), 0u);
  EXPECT_EQ(member("b").assignment(), b_share);
  EXPECT_EQ(member("a").assignment(), a_share);
  EXPECT_EQ(member("b").generation(), generation);
}

}  // namespace
}  // namespace spillway::testing
