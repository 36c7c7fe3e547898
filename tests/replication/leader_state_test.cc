// LeaderState: the high watermark over the ISR and the ISR proposals, on a
// fake clock.
#include "replication/leader_state.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace spillway::broker::replication {
namespace {

using Isr = std::vector<BrokerId>;

class LeaderStateTest : public ::testing::Test {
 protected:
  // Broker 1 leads epoch 3 from offset 10; replicas 1, 2, 3, all in the ISR.
  void SetUp() override {
    state.begin(1, LeaderEpoch(3), Offset(10), {1, 2, 3}, {1, 2, 3}, Offset(8), kLag, 0);
  }
  static constexpr int64_t kLag = 1000;
  LeaderState state;
};

TEST_F(LeaderStateTest, HighWatermarkWaitsForEveryIsrMemberToFetch) {
  EXPECT_EQ(state.high_watermark(), Offset(8));
  state.record_fetch(2, Offset(12), Offset(12), 1);
  EXPECT_FALSE(state.update_high_watermark(Offset(12)));  // 3 has not fetched yet
  EXPECT_EQ(state.high_watermark(), Offset(8));
  state.record_fetch(3, Offset(11), Offset(12), 2);
  EXPECT_TRUE(state.update_high_watermark(Offset(12)));
  EXPECT_EQ(state.high_watermark(), Offset(11));
}

TEST_F(LeaderStateTest, HighWatermarkIsTheMinimumWithTheLeadersOwnEnd) {
  state.record_fetch(2, Offset(20), Offset(20), 1);
  state.record_fetch(3, Offset(20), Offset(20), 1);
  // Under `durable` the leader's own end is its durable end.
  EXPECT_TRUE(state.update_high_watermark(Offset(15)));
  EXPECT_EQ(state.high_watermark(), Offset(15));
  EXPECT_TRUE(state.update_high_watermark(Offset(20)));
  EXPECT_EQ(state.high_watermark(), Offset(20));
}

TEST_F(LeaderStateTest, HighWatermarkNeverGoesBackwards) {
  state.record_fetch(2, Offset(20), Offset(20), 1);
  state.record_fetch(3, Offset(20), Offset(20), 1);
  ASSERT_TRUE(state.update_high_watermark(Offset(20)));
  // A follower restarted with less (it lost unsynced data): the HW stays.
  state.record_fetch(3, Offset(14), Offset(20), 2);
  EXPECT_FALSE(state.update_high_watermark(Offset(20)));
  EXPECT_EQ(state.high_watermark(), Offset(20));
}

TEST_F(LeaderStateTest, ShrinkAfterLagTimeWithoutCatchingUp) {
  state.record_fetch(2, Offset(10), Offset(10), 0);
  state.record_fetch(3, Offset(10), Offset(10), 0);
  state.record_fetch(2, Offset(30), Offset(30), 900);  // 2 keeps up, 3 stops fetching
  EXPECT_TRUE(state.update_high_watermark(Offset(30)));
  EXPECT_EQ(state.high_watermark(), Offset(10));
  EXPECT_FALSE(state.propose_isr_change(1000).has_value());
  std::optional<Isr> change = state.propose_isr_change(1001);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(*change, (Isr{1, 2}));
  EXPECT_TRUE(state.change_in_flight());
  // At most one change in flight.
  EXPECT_FALSE(state.propose_isr_change(5000).has_value());
  // Until stored, the member being removed still holds the HW back.
  EXPECT_FALSE(state.update_high_watermark(Offset(30)));
  EXPECT_EQ(state.high_watermark(), Offset(10));
  state.isr_stored({1, 2}, 1002);
  EXPECT_EQ(state.isr(), (Isr{1, 2}));
  EXPECT_TRUE(state.update_high_watermark(Offset(30)));
  EXPECT_EQ(state.high_watermark(), Offset(30));
}

TEST_F(LeaderStateTest, CaughtUpToThePreviousFetchsEndCountsUnderSteadyProduce) {
  // The follower never reaches the moving end, but each fetch reaches what
  // the leader had at the one before: it stays in the ISR.
  int64_t now = 0;
  for (int64_t end = 100; end < 3000; end += 100) {
    now += 200;
    state.record_fetch(2, Offset(end - 100), Offset(end), now);
    state.record_fetch(3, Offset(end - 100), Offset(end), now);
  }
  EXPECT_FALSE(state.propose_isr_change(now + 100).has_value());
}

TEST_F(LeaderStateTest, FallingBehindShrinks) {
  // The follower fetches often but gets ever further behind.
  int64_t now = 0;
  for (int64_t end = 100; end < 3000; end += 100) {
    now += 200;
    state.record_fetch(2, Offset(end), Offset(end), now);
    state.record_fetch(3, Offset(end / 4), Offset(end), now);
  }
  std::optional<Isr> change = state.propose_isr_change(now);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(*change, (Isr{1, 2}));
}

TEST_F(LeaderStateTest, ExpandOnceAtTheHighWatermarkAndTheEpochStart) {
  state.begin(1, LeaderEpoch(3), Offset(10), {1, 2, 3}, {1, 2}, Offset(8), kLag, 0);
  state.record_fetch(2, Offset(20), Offset(20), 1);
  ASSERT_TRUE(state.update_high_watermark(Offset(20)));
  state.record_fetch(3, Offset(9), Offset(20), 2);  // below the epoch start and the HW
  EXPECT_FALSE(state.propose_isr_change(3).has_value());
  state.record_fetch(3, Offset(19), Offset(20), 3);  // below the HW
  EXPECT_FALSE(state.propose_isr_change(4).has_value());
  state.record_fetch(3, Offset(20), Offset(20), 5);
  std::optional<Isr> change = state.propose_isr_change(6);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(*change, (Isr{1, 2, 3}));
  // The member being added counts for the HW at once.
  state.record_fetch(2, Offset(25), Offset(25), 7);
  EXPECT_FALSE(state.update_high_watermark(Offset(25)));
  EXPECT_EQ(state.high_watermark(), Offset(20));
  state.isr_stored(*change, 8);
  EXPECT_EQ(state.isr(), (Isr{1, 2, 3}));
  EXPECT_FALSE(state.change_in_flight());
}

TEST_F(LeaderStateTest, FailedWriteAllowsTheNextProposal) {
  state.record_fetch(2, Offset(10), Offset(10), 0);
  ASSERT_TRUE(state.propose_isr_change(2000).has_value());
  state.isr_failed();
  EXPECT_FALSE(state.change_in_flight());
  EXPECT_TRUE(state.propose_isr_change(2001).has_value());
}

TEST_F(LeaderStateTest, UnknownReplicasAreIgnored) {
  EXPECT_FALSE(state.record_fetch(7, Offset(5), Offset(10), 1));
  EXPECT_EQ(state.follower_end(7), kNoOffset);
}

// The controller removes a dead broker from the ISR on its own (its key is
// gone). The leader must not add it back from what it knew before the
// removal: seen in a three-broker run as 47 shrinks and 46 expansions in
// ten seconds, the leader and the controller undoing each other's write
// until the dead broker's last catch-up was older than the lag time.
TEST_F(LeaderStateTest, AReplicaRemovedFromTheIsrReturnsOnlyAfterFetchingAgain) {
  state.record_fetch(2, Offset(10), Offset(10), 100);
  state.record_fetch(3, Offset(10), Offset(10), 100);
  EXPECT_TRUE(state.update_high_watermark(Offset(10)));
  state.isr_stored({1, 2}, 200);  // the controller's removal of 3
  EXPECT_FALSE(state.propose_isr_change(300).has_value());
  // 3 comes back and fetches: it may join again.
  state.record_fetch(3, Offset(10), Offset(10), 400);
  std::optional<Isr> change = state.propose_isr_change(400);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(*change, (Isr{1, 2, 3}));
}

// A broker cut off from etcd (but not from the leader) loses its
// registration, and the controller takes it out of every ISR. It still
// fetches and is caught up, so a leader that looked only at fetches added
// it back at once, and the two undid each other's writes for as long as the
// cut lasted (seen in the network-partition fault run). Only registered
// replicas may join (KIP-841).
TEST_F(LeaderStateTest, AnUnregisteredReplicaDoesNotJoinTheIsr) {
  state.record_fetch(2, Offset(10), Offset(10), 100);
  state.record_fetch(3, Offset(10), Offset(10), 100);
  EXPECT_TRUE(state.update_high_watermark(Offset(10)));
  state.set_registered({1, 2});                        // 3's registration is gone
  state.isr_stored({1, 2}, 200);                       // the controller removed it
  state.record_fetch(3, Offset(10), Offset(10), 300);  // still fetching, caught up
  EXPECT_FALSE(state.propose_isr_change(300).has_value());
  state.set_registered({1, 2, 3});  // registered again
  state.record_fetch(3, Offset(10), Offset(10), 400);
  std::optional<Isr> change = state.propose_isr_change(400);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(*change, (Isr{1, 2, 3}));
}

// A partition move adds a replica within the term: the leader follows it
// from its first fetch and proposes it for the ISR once it caught up; the
// replicas that stay keep their state; one dropped is refused.
TEST_F(LeaderStateTest, ReplicasAddedWithinTheTermAreFollowed) {
  state.record_fetch(2, Offset(12), Offset(12), 1);
  state.record_fetch(3, Offset(12), Offset(12), 1);
  EXPECT_FALSE(state.record_fetch(4, Offset(0), Offset(12), 2));  // not a replica yet
  state.set_replicas({1, 2, 3, 4});
  EXPECT_EQ(state.follower_end(2), Offset(12));  // kept
  EXPECT_EQ(state.follower_end(4), kNoOffset);   // unknown until it fetches
  state.set_registered({1, 2, 3, 4});
  EXPECT_TRUE(state.record_fetch(4, Offset(0), Offset(12), 3));
  EXPECT_FALSE(state.propose_isr_change(3).has_value());  // behind
  EXPECT_TRUE(state.record_fetch(4, Offset(12), Offset(12), 4));
  auto proposal = state.propose_isr_change(4);
  ASSERT_TRUE(proposal.has_value());
  EXPECT_NE(std::find(proposal->begin(), proposal->end(), 4), proposal->end());
  state.isr_stored({1, 2, 4}, 5);
  state.set_replicas({1, 2, 4});
  EXPECT_FALSE(state.record_fetch(3, Offset(12), Offset(12), 6));
  EXPECT_EQ(state.follower_end(3), kNoOffset);
}

}  // namespace
}  // namespace spillway::broker::replication
