// group_coordinator: every broker picks the same coordinator from the same
// live set, groups spread over the brokers, and a broker's death moves only
// the groups it coordinated.
#include "cluster/group_placement.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace spillway::broker::cluster {
namespace {

ClusterSnapshot live(std::initializer_list<BrokerId> ids) {
  ClusterSnapshot s;
  for (BrokerId id : ids) s.brokers[id] = BrokerInfo{};
  return s;
}

TEST(GroupPlacement, NoLiveBrokerNoCoordinator) {
  EXPECT_EQ(group_coordinator(live({}), "g"), kNoBroker);
}

TEST(GroupPlacement, GroupsSpreadOverTheBrokers) {
  const ClusterSnapshot s = live({1, 2, 3});
  std::map<BrokerId, int> count;
  for (int i = 0; i < 3000; ++i) ++count[group_coordinator(s, "group-" + std::to_string(i))];
  ASSERT_EQ(count.size(), 3u);
  for (const auto& [id, n] : count) EXPECT_GT(n, 700) << "broker " << id;
}

TEST(GroupPlacement, ABrokersDeathMovesOnlyItsGroups) {
  const ClusterSnapshot all = live({1, 2, 3});
  const ClusterSnapshot without_2 = live({1, 3});
  int moved = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::string g = "group-" + std::to_string(i);
    const BrokerId before = group_coordinator(all, g);
    const BrokerId after = group_coordinator(without_2, g);
    if (before != 2) {
      EXPECT_EQ(after, before) << g;
    } else {
      EXPECT_NE(after, 2);
      ++moved;
    }
    // Back: the same coordinator as before.
    EXPECT_EQ(group_coordinator(all, g), before);
  }
  EXPECT_GT(moved, 0);
}

}  // namespace
}  // namespace spillway::broker::cluster
