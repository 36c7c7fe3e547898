// Rack-aware replica placement.
#include "cluster/replica_assignment.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

namespace spillway::broker::cluster {
namespace {

TEST(ReplicaAssignment, SpreadsOverRacksAndLeaders) {
  std::vector<PlacementBroker> brokers{{0, "a"}, {1, "a"}, {2, "b"}, {3, "b"}, {4, "c"}, {5, "c"}};
  std::map<BrokerId, std::string> rack;
  for (const auto& b : brokers) rack[b.id] = b.rack;
  auto r = assign_replicas(brokers, 12, 3, "orders");
  ASSERT_TRUE(r.ok());
  std::map<BrokerId, int> leads, holds;
  for (const auto& reps : *r) {
    ASSERT_EQ(reps.size(), 3u);
    std::set<std::string> racks;
    std::set<BrokerId> ids(reps.begin(), reps.end());
    for (BrokerId b : reps) racks.insert(rack[b]);
    EXPECT_EQ(racks.size(), 3u);  // one replica per rack
    EXPECT_EQ(ids.size(), 3u);
    ++leads[reps.front()];
    for (BrokerId b : reps) ++holds[b];
  }
  for (const auto& b : brokers) {
    EXPECT_EQ(leads[b.id], 2) << b.id;  // preferred leaders round-robin
    EXPECT_EQ(holds[b.id], 6) << b.id;
  }
}

TEST(ReplicaAssignment, UnevenRacksStillDistinct) {
  std::vector<PlacementBroker> brokers{{1, "a"}, {2, "a"}, {3, "a"}, {4, "b"}};
  auto r = assign_replicas(brokers, 8, 3, "t");
  ASSERT_TRUE(r.ok());
  for (const auto& reps : *r) {
    std::set<BrokerId> ids(reps.begin(), reps.end());
    EXPECT_EQ(ids.size(), 3u);
    EXPECT_TRUE(ids.contains(4));  // both racks hold a replica
  }
}

TEST(ReplicaAssignment, StartVariesPerTopicAndRefusesTooFewBrokers) {
  std::vector<PlacementBroker> brokers{{0, ""}, {1, ""}, {2, ""}, {3, ""}, {4, ""}};
  std::set<BrokerId> first_leaders;
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g", "h"}) {
    auto r = assign_replicas(brokers, 1, 2, name);
    ASSERT_TRUE(r.ok());
    first_leaders.insert((*r)[0][0]);
  }
  EXPECT_GT(first_leaders.size(), 1u);
  EXPECT_EQ(assign_replicas(brokers, 1, 6, "x").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(assign_replicas(brokers, 0, 1, "x").status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace spillway::broker::cluster
