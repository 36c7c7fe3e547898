// One step of truncation by leader epoch (KIP-101, KIP-279).
#include "replication/follower_truncation.h"

#include <gtest/gtest.h>

namespace spillway::broker::replication {
namespace {

using storage::EpochEntry;
using Entries = std::vector<EpochEntry>;

EpochEntry entry(int32_t epoch, int64_t start) { return {LeaderEpoch(epoch), Offset(start)}; }

TEST(EpochEndOffset, LargestEpochAtOrBelowTheRequest) {
  const Entries e{entry(0, 0), entry(2, 10), entry(5, 20)};
  EXPECT_EQ(epoch_end_offset(e, LeaderEpoch(5), Offset(30)),
            std::make_pair(LeaderEpoch(5), Offset(30)));
  EXPECT_EQ(epoch_end_offset(e, LeaderEpoch(4), Offset(30)),
            std::make_pair(LeaderEpoch(2), Offset(20)));
  EXPECT_EQ(epoch_end_offset(e, LeaderEpoch(0), Offset(30)),
            std::make_pair(LeaderEpoch(0), Offset(10)));
  EXPECT_EQ(epoch_end_offset(Entries{entry(3, 5)}, LeaderEpoch(2), Offset(30)),
            std::make_pair(LeaderEpoch(-1), kNoOffset));
  EXPECT_EQ(epoch_to_ask(e), LeaderEpoch(5));
  EXPECT_EQ(epoch_to_ask(Entries{}), LeaderEpoch(-1));
}

TEST(NextTruncation, SameEpochTruncatesToTheLeadersEnd) {
  // KIP-101 scenario 2's follower: epoch 1 has more here than on the leader.
  const Entries e{entry(0, 0), entry(1, 10)};
  TruncationStep s = next_truncation(e, Offset(0), Offset(15), LeaderEpoch(1), Offset(12));
  EXPECT_TRUE(s.done);
  EXPECT_EQ(s.truncate_to, Offset(12));
}

TEST(NextTruncation, LeaderHasMoreKeepsEverything) {
  // KIP-101 scenario 1: the follower's HW was 1 but the leader has both
  // records of epoch 0: nothing is truncated (truncation to the HW would
  // have dropped an acknowledged record).
  const Entries e{entry(0, 0)};
  TruncationStep s = next_truncation(e, Offset(0), Offset(2), LeaderEpoch(0), Offset(2));
  EXPECT_TRUE(s.done);
  EXPECT_EQ(s.truncate_to, Offset(2));
}

TEST(NextTruncation, UnknownEpochAsksAgain) {
  // KIP-279: the follower has epochs 0 and 2; the leader answers epoch 1
  // (its largest <= 2), which the follower never saw.
  const Entries e{entry(0, 0), entry(2, 10)};
  TruncationStep s = next_truncation(e, Offset(0), Offset(20), LeaderEpoch(1), Offset(14));
  EXPECT_FALSE(s.done);
  EXPECT_EQ(s.truncate_to, Offset(10));  // where its epoch 0 ends here
  // After the truncation the follower asks for epoch 0: the leader says 0
  // ends at 12, past this log's end: done, nothing more to remove.
  const Entries after{entry(0, 0)};
  s = next_truncation(after, Offset(0), Offset(10), LeaderEpoch(0), Offset(12));
  EXPECT_TRUE(s.done);
  EXPECT_EQ(s.truncate_to, Offset(10));
}

TEST(NextTruncation, LeaderWithNoEarlierEpochEmptiesTheFollower) {
  const Entries e{entry(4, 100)};
  TruncationStep s = next_truncation(e, Offset(100), Offset(130), LeaderEpoch(-1), kNoOffset);
  EXPECT_TRUE(s.done);
  EXPECT_EQ(s.truncate_to, Offset(100));
  // The leader answers an epoch older than everything here.
  s = next_truncation(e, Offset(100), Offset(130), LeaderEpoch(2), Offset(110));
  EXPECT_TRUE(s.done);
  EXPECT_EQ(s.truncate_to, Offset(100));
}

TEST(NextTruncation, NeverPastTheFollowersEnd) {
  const Entries e{entry(0, 0), entry(3, 5)};
  TruncationStep s = next_truncation(e, Offset(0), Offset(7), LeaderEpoch(3), Offset(50));
  EXPECT_TRUE(s.done);
  EXPECT_EQ(s.truncate_to, Offset(7));
}

}  // namespace
}  // namespace spillway::broker::replication
