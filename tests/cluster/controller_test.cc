// The controller's decisions for one partition, as pure functions.
#include "cluster/controller.h"

#include <gtest/gtest.h>

namespace spillway::broker::cluster {
namespace {

ClusterSnapshot with_brokers(std::initializer_list<BrokerId> live) {
  ClusterSnapshot s;
  s.controller_epoch = 50;
  for (BrokerId b : live) s.brokers[b] = BrokerInfo{b, "h:1", "", "", 1, false};
  return s;
}

PartitionState state(BrokerId leader, int32_t epoch, std::vector<BrokerId> isr) {
  PartitionState p;
  p.leader = leader;
  p.leader_epoch = epoch;
  p.isr = std::move(isr);
  return p;
}

TEST(Controller, DeadLeaderReplacedFromIsrInReplicaOrder) {
  auto s = with_brokers({2, 3});
  auto next = next_partition_state(s, {1, 3, 2}, state(1, 4, {1, 2, 3}), false, true);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->leader, 3);
  EXPECT_EQ(next->leader_epoch, 5);
  EXPECT_EQ(next->isr, (std::vector<BrokerId>{2, 3}));
}

TEST(Controller, NeverOutsideIsrUnlessUnclean) {
  auto s = with_brokers({2, 3});
  auto next = next_partition_state(s, {1, 2, 3}, state(1, 4, {1}), false, true);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->leader, kNoBroker);
  EXPECT_EQ(next->leader_epoch, 5);
  EXPECT_EQ(next->isr, (std::vector<BrokerId>{1}));  // the last member stays
  // Offline and nothing changed: no write.
  EXPECT_FALSE(next_partition_state(s, {1, 2, 3}, *next, false, true));
  auto unclean = next_partition_state(s, {1, 2, 3}, state(1, 4, {1}), true, true);
  ASSERT_TRUE(unclean);
  EXPECT_EQ(unclean->leader, 2);
  EXPECT_EQ(unclean->isr, (std::vector<BrokerId>{2}));
}

TEST(Controller, OfflineComesBackWithIsrMember) {
  auto s = with_brokers({1, 2});
  auto next = next_partition_state(s, {1, 2}, state(kNoBroker, 6, {1}), false, true);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->leader, 1);
  EXPECT_EQ(next->leader_epoch, 7);
}

TEST(Controller, ShuttingDownLeaderHandsOverOrKeeps) {
  auto s = with_brokers({1, 2});
  s.brokers[1].shutting_down = true;
  auto next = next_partition_state(s, {1, 2}, state(1, 0, {1, 2}), false, true);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->leader, 2);
  EXPECT_EQ(next->isr, (std::vector<BrokerId>{1, 2}));
  // Alone in the ISR: keeps leading rather than going offline.
  EXPECT_FALSE(next_partition_state(s, {1, 2}, state(1, 0, {1}), false, true));
}

TEST(Controller, PreferredLeaderAndIsrCleanup) {
  auto s = with_brokers({1, 2});
  auto back = next_partition_state(s, {1, 2, 3}, state(2, 3, {2, 1}), false, true);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->leader, 1);
  EXPECT_EQ(back->leader_epoch, 4);
  EXPECT_FALSE(next_partition_state(s, {1, 2}, state(2, 3, {2, 1}), false, false));
  auto cleaned = next_partition_state(s, {1, 2, 3}, state(1, 3, {1, 3}), false, true);
  ASSERT_TRUE(cleaned);
  EXPECT_EQ(cleaned->leader, 1);
  EXPECT_EQ(cleaned->leader_epoch, 3);  // a follower leaving needs no new epoch
  EXPECT_EQ(cleaned->isr, (std::vector<BrokerId>{1}));
}

TEST(Controller, TxnComparesControllerEpochAndModRevisions) {
  ClusterKeys keys("c");
  ControllerTxn t{{KeyWrite{keys.partition("t", 0), 17, "{}"}}, "x"};
  std::vector<Compare> cmp;
  std::vector<TxnOp> ops;
  to_txn(t, keys, 9, &cmp, &ops);
  ASSERT_EQ(cmp.size(), 2u);
  EXPECT_EQ(cmp[0].key, keys.controller());
  EXPECT_EQ(cmp[0].target, Compare::Target::kCreateRevision);
  EXPECT_EQ(cmp[0].number, 9);
  EXPECT_EQ(cmp[1].target, Compare::Target::kModRevision);
  EXPECT_EQ(cmp[1].number, 17);
  ASSERT_EQ(ops.size(), 1u);
}

}  // namespace
}  // namespace spillway::broker::cluster
