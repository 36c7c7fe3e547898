// Static membership (group.instance.id): a member killed and restarted with
// the same instance id within its session timeout gets its partitions back
// and the group does not rebalance: the other member sees no revoke or
// assign, and keeps committing in the same generation. Each of the two
// members is restarted in turn, so the group's leader is one of them.
#include <gtest/gtest.h>
#include <signal.h>

#include "group_test.h"

namespace spillway::testing {
namespace {

class StaticMembershipTest : public GroupTest {
 protected:
  MemberOptions static_member(const std::string& name) const {
    MemberOptions o = member_options("range");
    o.instance_id = "instance-" + name;
    // Room for the restart (a process start and a JoinGroup).
    o.session_timeout_ms = 15'000;
    return o;
  }
};

TEST_F(StaticMembershipTest, ARestartedMemberGetsItsPartitionsBackWithoutARebalance) {
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
  expect_described("range");
  const DescribedGroup described = describe_group(kafka(), group_);
  std::set<std::string> instances;
  for (const DescribedMember& m : described.members) instances.insert(m.instance_id);
  EXPECT_EQ(instances, (std::set<std::string>{"instance-a", "instance-b"}));
}

}  // namespace
}  // namespace spillway::testing
