// The client-side partition assignors (client/src/assignors/): range, and
// cooperative-sticky with its two-phase moves.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "assignors/cooperative_sticky_assignor.h"
#include "assignors/range_assignor.h"

namespace spillway::assignors {
namespace {

std::vector<TopicPartition> parts(const std::string& topic, std::initializer_list<int32_t> ps) {
  std::vector<TopicPartition> out;
  for (int32_t p : ps) out.push_back({topic, p});
  return out;
}

// Every partition at most once; returns how many were assigned.
size_t check_disjoint(const GroupAssignment& a) {
  std::set<TopicPartition> seen;
  size_t n = 0;
  for (const auto& [id, ps] : a) {
    for (const TopicPartition& tp : ps) {
      EXPECT_TRUE(seen.insert(tp).second) << tp.topic << "/" << tp.partition << " twice";
      ++n;
    }
  }
  return n;
}

TEST(RangeAssignor, SplitsEachTopicIntoContiguousRanges) {
  const std::vector<MemberSubscription> members = {
      {"b", {"t"}, {}}, {"a", {"t"}, {}}, {"c", {"t"}, {}}};
  GroupAssignment a = range_assign(members, {{"t", 7}});
  EXPECT_EQ(a["a"], parts("t", {0, 1, 2}));
  EXPECT_EQ(a["b"], parts("t", {3, 4}));
  EXPECT_EQ(a["c"], parts("t", {5, 6}));
}

TEST(RangeAssignor, OnlySubscribersGetATopicAndEveryMemberHasAnEntry) {
  const std::vector<MemberSubscription> members = {
      {"a", {"x", "y"}, {}}, {"b", {"x"}, {}}, {"c", {"missing"}, {}}};
  GroupAssignment a = range_assign(members, {{"x", 2}, {"y", 3}});
  EXPECT_EQ(a["a"], (std::vector<TopicPartition>{{"x", 0}, {"y", 0}, {"y", 1}, {"y", 2}}));
  EXPECT_EQ(a["b"], parts("x", {1}));
  ASSERT_TRUE(a.count("c"));
  EXPECT_TRUE(a["c"].empty());
  EXPECT_EQ(check_disjoint(a), 5u);
}

TEST(CooperativeStickyAssignor, FirstAssignmentIsBalancedAndCovering) {
  GroupAssignment a = cooperative_sticky_assign({{"a", {"t"}, {}}, {"b", {"t"}, {}}}, {{"t", 6}});
  EXPECT_EQ(check_disjoint(a), 6u);
  EXPECT_EQ(a["a"].size(), 3u);
  EXPECT_EQ(a["b"].size(), 3u);
}

TEST(CooperativeStickyAssignor, ANewMemberGetsMovedPartitionsOnlyInTheSecondPhase) {
  const auto a_owned = parts("t", {0, 1, 2});
  const auto b_owned = parts("t", {3, 4, 5});
  // Phase 1: c joins owning nothing.
  GroupAssignment one = cooperative_sticky_assign(
      {{"a", {"t"}, a_owned}, {"b", {"t"}, b_owned}, {"c", {"t"}, {}}}, {{"t", 6}});
  EXPECT_EQ(check_disjoint(one), 4u);  // two partitions are in flight
  EXPECT_TRUE(one["c"].empty());
  EXPECT_EQ(one["a"].size(), 2u);
  EXPECT_EQ(one["b"].size(), 2u);
  // Each keeps only what it owned: nothing is taken from one and given to
  // another in the same generation.
  for (const TopicPartition& tp : one["a"])
    EXPECT_NE(std::find(a_owned.begin(), a_owned.end(), tp), a_owned.end());
  for (const TopicPartition& tp : one["b"])
    EXPECT_NE(std::find(b_owned.begin(), b_owned.end(), tp), b_owned.end());
  // Phase 2: a and b rejoin owning what phase 1 left them.
  GroupAssignment two = cooperative_sticky_assign(
      {{"a", {"t"}, one["a"]}, {"b", {"t"}, one["b"]}, {"c", {"t"}, {}}}, {{"t", 6}});
  EXPECT_EQ(check_disjoint(two), 6u);
  EXPECT_EQ(two["a"], one["a"]);
  EXPECT_EQ(two["b"], one["b"]);
  EXPECT_EQ(two["c"].size(), 2u);
}

TEST(CooperativeStickyAssignor, ALeavingMembersPartitionsGoToTheOthersWithoutRevocations) {
  GroupAssignment a = cooperative_sticky_assign(
      {{"a", {"t"}, parts("t", {0, 1})}, {"b", {"t"}, parts("t", {2, 3})}}, {{"t", 6}});
  EXPECT_EQ(check_disjoint(a), 6u);
  for (int32_t p : {0, 1})
    EXPECT_NE(std::find(a["a"].begin(), a["a"].end(), TopicPartition{"t", p}), a["a"].end());
  for (int32_t p : {2, 3})
    EXPECT_NE(std::find(a["b"].begin(), a["b"].end(), TopicPartition{"t", p}), a["b"].end());
  EXPECT_EQ(a["a"].size(), 3u);
}

// Random membership changes, each applied as the protocol does: a member's
// owned partitions are what it was last assigned. Nothing is ever assigned
// twice, and once the group settles (a rebalance that moves nothing) every
// partition is assigned, within one of balance.
TEST(CooperativeStickyAssignor, RandomChurnConvergesWithoutDoubleAssignment) {
  std::mt19937 rng(7);
  std::map<std::string, std::vector<TopicPartition>> owned;
  int next_id = 0;
  for (int round = 0; round < 200; ++round) {
    if (owned.empty() || rng() % 3 == 0) {
      owned["m" + std::to_string(next_id++)];
    } else if (owned.size() > 1 && rng() % 2 == 0) {
      auto it = owned.begin();
      std::advance(it, rng() % owned.size());
      owned.erase(it);
    }
    for (int phase = 0; phase < 3; ++phase) {
      std::vector<MemberSubscription> members;
      for (const auto& [id, ps] : owned) members.push_back({id, {"t"}, ps});
      GroupAssignment a = cooperative_sticky_assign(members, {{"t", 13}});
      check_disjoint(a);
      bool moved = false;
      for (auto& [id, ps] : owned) {
        if (a[id] != ps) moved = true;
        ps = a[id];
      }
      if (!moved) break;
    }
    EXPECT_EQ(check_disjoint(GroupAssignment(owned.begin(), owned.end())), 13u) << round;
    size_t lo = SIZE_MAX, hi = 0;
    for (const auto& [id, ps] : owned) {
      lo = std::min(lo, ps.size());
      hi = std::max(hi, ps.size());
    }
    EXPECT_LE(hi - lo, 1u) << round;
  }
}

}  // namespace
}  // namespace spillway::assignors
