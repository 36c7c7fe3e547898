// The divergence scenarios replication by leader epoch exists for (Kafka's
// KIP-101, KIP-279, KIP-320), ISR changes and acks=all, on simulated
// replicas (replica_sim.h): each ends with identical logs on every live
// replica and every acks=all-acknowledged record at its offset.
#include <gtest/gtest.h>

#include "replica_sim.h"

namespace spillway::broker::replication::testing {
namespace {

// KIP-101 scenario 1: a follower that restarts and truncated to its high
// watermark would drop a record the leader had acknowledged; if the leader
// then dies, the record is gone. Truncating by leader epoch keeps it.
TEST(Kip101, RestartedFollowerKeepsAnAcknowledgedRecord) {
  ReplicaSim sim(2);
  sim.elect(1);
  ASSERT_TRUE(sim.produce(1).has_value());
  sim.replicate(2);
  ASSERT_TRUE(sim.produce(2).has_value());
  ASSERT_EQ(sim.fetch(2), ErrorCode::kOk);  // gets m2; the leader's HW is still 1
  ASSERT_EQ(sim.fetch(2), ErrorCode::kOk);  // the leader learns it: m2 acknowledged
  ASSERT_EQ(sim.acked().size(), 2u);
  // The follower restarts: its HW is not kept (0 < 2 records it has).
  sim.restart_clean(2);
  EXPECT_LT(sim.replica(2).hw, Offset(2));
  ASSERT_EQ(sim.fetch(2), ErrorCode::kOk);  // truncation by epoch: keeps both
  EXPECT_EQ(sim.replica(2).log->log_end_offset(), Offset(2));
  // The leader dies at once; the follower takes over with both records.
  sim.crash(1);
  sim.elect(2);
  EXPECT_EQ(sim.replica(2).log->log_end_offset(), Offset(2));
  sim.restart(1);
  sim.replicate(2);
  sim.expect_consistent();
}

// KIP-101 scenario 2: both replicas lose power; the one that comes back
// first leads and writes at an offset the other also has, with different
// data. Epoch-end truncation removes the other's unacknowledged record.
TEST(Kip101, DivergentLogsAfterPowerLossReconcile) {
  ReplicaSim sim(2);
  sim.elect(1);
  ASSERT_TRUE(sim.produce(1).has_value());
  sim.replicate(2);
  ASSERT_EQ(sim.acked().size(), 1u);
  sim.flush(1);
  sim.flush(2);
  ASSERT_TRUE(sim.produce(2).has_value());  // m2 on the leader only, synced there
  sim.flush(1);
  sim.crash(1);
  sim.crash(2);
  sim.restart(2);
  sim.elect(2);
  ASSERT_TRUE(sim.produce(3).has_value());  // m3 at offset 1, epoch 1
  ASSERT_EQ(sim.acked().size(), 2u);         // ISR {2}: acknowledged at once
  sim.restart(1);
  EXPECT_EQ(sim.replica(1).log->log_end_offset(), Offset(2));  // m1, m2
  sim.replicate(2);
  EXPECT_EQ(sim.replica(1).log->log_end_offset(), Offset(2));  // m1, m3
  sim.expect_consistent();
}

// KIP-279: leaders change in quick succession, so the follower's latest
// epochs are ones the leader never had; it asks again, epoch after epoch,
// until they agree.
TEST(Kip279, SeveralRoundsOfEpochEndQuestions) {
  ReplicaSim sim(3);
  sim.elect(1);  // epoch 0
  ASSERT_TRUE(sim.produce(1).has_value());
  ASSERT_TRUE(sim.produce(2).has_value());
  sim.replicate(2);
  ASSERT_EQ(sim.acked().size(), 2u);
  sim.elect(1);  // epoch 1: three records on 1 only
  sim.replicate(1);  // followers truncate (nothing to remove) and are up to date
  for (uint64_t s = 3; s <= 5; ++s) ASSERT_TRUE(sim.produce(s).has_value());
  sim.flush(1);
  sim.crash(1);
  sim.elect(2);  // epoch 2: one record on 2 only
  ASSERT_TRUE(sim.produce(6).has_value());
  sim.flush(2);
  sim.crash(2);
  sim.restart(1);
  sim.elect(1);  // epoch 3 (1 has what 3 has): one more record on 1 only
  ASSERT_TRUE(sim.produce(7).has_value());
  sim.flush(1);
  sim.crash(1);
  sim.restart(2);
  sim.elect(2);  // epoch 4
  ASSERT_TRUE(sim.produce(8).has_value());
  sim.restart(1);
  // 1 has epochs {0@0, 1@2, 3@5}, the leader {0@0, 2@2, 4@3}.
  ASSERT_EQ(sim.replica(1).epochs->entries().size(), 3u);
  const int rounds = sim.truncate(sim.replica(1));
  EXPECT_EQ(rounds, 2);
  EXPECT_EQ(sim.replica(1).log->log_end_offset(), Offset(2));
  sim.replicate(3);
  sim.expect_consistent();
  EXPECT_EQ(sim.replica(1).log->log_end_offset(), sim.replica(2).log->log_end_offset());
}

// KIP-320: a leader cut off from the cluster keeps taking appends in its
// old epoch, but no follower of the new epoch fetches from it, so nothing
// it takes is acknowledged; back, it is fenced until it follows the new
// epoch, and then truncates its divergent tail.
TEST(Kip320, ZombieLeaderAndStaleFollowerAreFenced) {
  ReplicaSim sim(3, /*min_insync=*/2);
  sim.elect(1);
  ASSERT_TRUE(sim.produce(1).has_value());
  sim.replicate(2);
  ASSERT_EQ(sim.acked().size(), 1u);
  sim.elect(2, /*unaware=*/{1});  // 1 is cut off and still believes it leads epoch 0
  EXPECT_EQ(sim.zombie_append(1, 100), Offset(1));
  EXPECT_EQ(sim.zombie_append(1, 101), Offset(2));
  // The followers of epoch 1 do not fetch from the zombie.
  EXPECT_EQ(sim.fetch_from(3, 1), ErrorCode::kUnknownLeaderEpoch);
  ASSERT_TRUE(sim.produce(2).has_value());
  sim.replicate(2);
  ASSERT_EQ(sim.acked().size(), 2u);
  // The zombie, told it is a follower but still on epoch 0, is fenced.
  sim.replica(1).leader = false;
  EXPECT_EQ(sim.fetch(1, LeaderEpoch(0)), ErrorCode::kFencedLeaderEpoch);
  // A fetch claiming an epoch the leader does not know yet.
  EXPECT_EQ(sim.fetch(3, LeaderEpoch(5)), ErrorCode::kUnknownLeaderEpoch);
  // An older registration of broker 3 (a process that lost its lease).
  EXPECT_EQ(sim.fetch(3, std::nullopt, /*broker_epoch=*/0), ErrorCode::kStaleBrokerEpoch);
  sim.rejoin(1);
  sim.replicate(2);
  sim.expect_consistent();
  EXPECT_EQ(sim.replica(1).log->log_end_offset(), Offset(2));
}

// ISR: a follower that stops fetching holds the HW back until it is
// removed after the lag time; back and caught up, it is added again. The
// HW never goes backwards.
TEST(Isr, ShrinkAndExpandWithTheHighWatermarkNeverBackwards) {
  ReplicaSim sim(3, /*min_insync=*/2);
  sim.elect(1);
  Offset last_hw{0};
  auto check_hw = [&] {
    const Offset hw = sim.leader_state().high_watermark();
    EXPECT_GE(hw, last_hw);
    last_hw = hw;
  };
  for (uint64_t s = 1; s <= 5; ++s) {
    ASSERT_TRUE(sim.produce(s).has_value());
    sim.replicate(2);
    sim.advance(100);
    check_hw();
  }
  ASSERT_EQ(sim.acked().size(), 5u);
  sim.crash(3);
  ASSERT_TRUE(sim.produce(6).has_value());
  sim.replicate(2);
  check_hw();
  EXPECT_EQ(sim.acked().size(), 5u);  // 3 is still in the ISR
  for (int i = 0; i < 12; ++i) {
    sim.advance(100);
    sim.replicate(1);
    sim.leader_round();
    check_hw();
  }
  EXPECT_EQ(sim.isr(), (std::vector<BrokerId>{1, 2}));
  EXPECT_EQ(sim.acked().size(), 6u);
  sim.restart(3);
  for (int i = 0; i < 3; ++i) {
    sim.advance(100);
    sim.replicate(1);
    check_hw();
  }
  EXPECT_EQ(sim.isr().size(), 3u);
  EXPECT_EQ(sim.isr_changes(), 2);
  ASSERT_TRUE(sim.produce(7).has_value());
  sim.replicate(2);
  check_hw();
  EXPECT_EQ(sim.acked().size(), 7u);
  sim.expect_consistent();
}

// acks=all is refused, before any append, once the ISR is below
// min_insync_replicas.
TEST(AcksAll, RefusedBelowMinInsync) {
  ReplicaSim sim(3, /*min_insync=*/2);
  sim.elect(1);
  ASSERT_TRUE(sim.produce(1).has_value());
  sim.replicate(2);
  sim.crash(2);
  sim.crash(3);
  sim.advance(2000);
  sim.leader_round();  // one change at a time: 2 and 3 go together (one proposal)
  EXPECT_EQ(sim.isr(), (std::vector<BrokerId>{1}));
  const Offset end = sim.replica(1).log->log_end_offset();
  EXPECT_FALSE(sim.produce(2).has_value());
  EXPECT_EQ(sim.replica(1).log->log_end_offset(), end);  // nothing appended
  sim.restart(2);
  sim.replicate(2);
  EXPECT_EQ(sim.isr().size(), 2u);
  EXPECT_TRUE(sim.produce(3).has_value());
  sim.replicate(2);
  EXPECT_EQ(sim.acked().size(), 2u);
  sim.expect_consistent();
}

// Many rounds of random leader changes and power losses: no acknowledged
// record is lost, the live logs agree. Deterministic (fixed seeds).
TEST(Failover, RandomFailoversLoseNoAcknowledgedRecord) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    ReplicaSim sim(3, /*min_insync=*/2);
    sim.elect(1);
    uint64_t x = seed;
    uint64_t value = 1;
    for (int step = 0; step < 60; ++step) {
      x = storage::testing::mix64(x);
      switch (x % 6) {
        case 0:
        case 1:
        case 2:
          (void)sim.produce(value++);
          break;
        case 3:
          sim.replicate(1);
          sim.advance(50);
          break;
        case 4: {
          // The leader loses power; a live ISR member takes over. With
          // none, it restarts cleanly and leads again (a power loss of
          // the whole ISR under `interval` loses what was not synced:
          // documented, not tested here).
          const BrokerId old = sim.leader_id();
          BrokerId next = kNoBroker;
          for (BrokerId m : sim.isr()) {
            if (m != old && sim.replica(m).alive) next = m;
          }
          if (next == kNoBroker) {
            sim.restart_clean(old);
            sim.elect(old);
            break;
          }
          if (x % 4 == 0) sim.flush(old);
          sim.crash(old);
          sim.elect(next);
          sim.restart(old);
          break;
        }
        default:
          sim.leader_round();
          break;
      }
    }
    sim.replicate(3);
    SCOPED_TRACE("seed " + std::to_string(seed));
    sim.expect_consistent();
  }
}

}  // namespace
}  // namespace spillway::broker::replication::testing
