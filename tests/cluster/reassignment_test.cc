// Partition moves in a snapshot (cluster/reassignment.h): the rules of a
// reassign request, the views ListPartitionReassignments shows, and which
// replica fetches the reassignment throttle applies to. Pure functions.
#include "cluster/reassignment.h"

#include <gtest/gtest.h>

namespace spillway::broker::cluster {
namespace {

using Ids = std::vector<BrokerId>;

// Brokers 1..3 live; topic "t" with partition 0 on {1,2} (ISR {1,2},
// leader 1) and partition 1 on {2,3}.
ClusterSnapshot cluster() {
  ClusterSnapshot s;
  for (BrokerId b : {1, 2, 3}) s.brokers[b] = BrokerInfo{b, "h:1", "", "", 1, false};
  TopicAssignment t;
  t.name = "t";
  t.replicas = {{1, 2}, {2, 3}};
  s.topics["t"] = t;
  PartitionState p;
  p.leader = 1;
  p.isr = {1, 2};
  s.partitions[PartitionKey{"t", 0}] = p;
  return s;
}

std::vector<Status> apply(const ClusterSnapshot& s, std::vector<ReassignOrder> orders,
                          TopicAssignment* t, bool* changed) {
  return apply_reassign_orders(s, orders, t, changed);
}

TEST(Reassignment, NewMoveRecordsTargetOriginalAndThrottle) {
  const ClusterSnapshot s = cluster();
  TopicAssignment t = s.topics.at("t");
  bool changed = false;
  auto r = apply(s, {{.partition = 0, .replicas = {2, 3}, .throttle_bytes_per_sec = 1000}}, &t,
                 &changed);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].ok()) << r[0].to_string();
  EXPECT_TRUE(changed);
  EXPECT_EQ(t.reassigning.at(0),
            (Reassignment{.target = {2, 3}, .original = {1, 2}, .throttle_bytes_per_sec = 1000}));
  EXPECT_EQ(t.replicas[0], (Ids{1, 2}));  // the controller changes the assignment, not this
}

TEST(Reassignment, SameReplicasIsNothingToDo) {
  const ClusterSnapshot s = cluster();
  TopicAssignment t = s.topics.at("t");
  bool changed = true;
  auto r = apply(s, {{.partition = 0, .replicas = {1, 2}}}, &t, &changed);
  EXPECT_TRUE(r[0].ok());
  EXPECT_FALSE(changed);
  EXPECT_TRUE(t.reassigning.empty());
}

TEST(Reassignment, ReissuingChangesTargetAndThrottleButKeepsTheOriginal) {
  ClusterSnapshot s = cluster();
  TopicAssignment& stored = s.topics.at("t");
  stored.replicas[0] = {1, 2, 3};  // the controller's first step ran
  stored.reassigning[0] = {.target = {2, 3}, .original = {1, 2}, .throttle_bytes_per_sec = 10};
  TopicAssignment t = stored;
  bool changed = false;
  auto r =
      apply(s, {{.partition = 0, .replicas = {2, 3}, .throttle_bytes_per_sec = 0}}, &t, &changed);
  EXPECT_TRUE(r[0].ok());
  EXPECT_TRUE(changed);
  EXPECT_EQ(t.reassigning.at(0), (Reassignment{.target = {2, 3}, .original = {1, 2}}));
  // The same again changes nothing.
  TopicAssignment again = t;
  r = apply(s, {{.partition = 0, .replicas = {2, 3}}}, &again, &changed);
  EXPECT_TRUE(r[0].ok());
  EXPECT_FALSE(changed);
}

TEST(Reassignment, CancelGoesBackToTheOriginalReplicas) {
  ClusterSnapshot s = cluster();
  TopicAssignment& stored = s.topics.at("t");
  stored.replicas[0] = {1, 2, 3};
  stored.reassigning[0] = {.target = {2, 3}, .original = {1, 2}, .throttle_bytes_per_sec = 10};
  TopicAssignment t = stored;
  bool changed = false;
  auto r = apply(s, {{.partition = 0, .replicas = {}}}, &t, &changed);
  EXPECT_TRUE(r[0].ok()) << r[0].to_string();
  EXPECT_TRUE(changed);
  EXPECT_EQ(t.reassigning.at(0), (Reassignment{.target = {1, 2}, .original = {1, 2}}));

  // Before the controller added anything the move just goes.
  stored.replicas[0] = {1, 2};
  t = stored;
  r = apply(s, {{.partition = 0, .replicas = {}}}, &t, &changed);
  EXPECT_TRUE(r[0].ok());
  EXPECT_TRUE(t.reassigning.empty());

  // Nothing to cancel; a move without its original replicas cannot be.
  t = s.topics.at("t");
  r = apply(s, {{.partition = 1, .replicas = {}}}, &t, &changed);
  EXPECT_EQ(r[0].code(), ErrorCode::kNoReassignmentInProgress);
  stored.reassigning[0] = {.target = {2, 3}};
  t = stored;
  r = apply(s, {{.partition = 0, .replicas = {}}}, &t, &changed);
  EXPECT_EQ(r[0].code(), ErrorCode::kInvalidArgument);
}

TEST(Reassignment, RefusesBadOrders) {
  const ClusterSnapshot s = cluster();
  auto one = [&](ReassignOrder order) {
    TopicAssignment t = s.topics.at("t");
    bool changed = false;
    Status st = apply(s, {std::move(order)}, &t, &changed)[0];
    EXPECT_FALSE(changed) << st.to_string();
    EXPECT_TRUE(t.reassigning.empty());
    return st;
  };
  EXPECT_EQ(one({.partition = 5, .replicas = {1}}).code(), ErrorCode::kUnknownPartition);
  EXPECT_EQ(one({.partition = -1, .replicas = {1}}).code(), ErrorCode::kUnknownPartition);
  const Status dead = one({.partition = 0, .replicas = {2, 9}});
  EXPECT_EQ(dead.code(), ErrorCode::kInvalidReplicaAssignment);
  EXPECT_NE(dead.message().find("broker 9 is not a live broker of the cluster (live: 1,2,3)"),
            std::string_view::npos)
      << dead.to_string();
  const Status twice = one({.partition = 0, .replicas = {3, 3}});
  EXPECT_EQ(twice.code(), ErrorCode::kInvalidReplicaAssignment);
  EXPECT_NE(twice.message().find("broker 3 is named twice"), std::string_view::npos);
  EXPECT_EQ(one({.partition = 0, .replicas = {-4}}).code(), ErrorCode::kInvalidReplicaAssignment);
  EXPECT_EQ(one({.partition = 0, .replicas = Ids(17, 1)}).code(),
            ErrorCode::kInvalidReplicaAssignment);
  EXPECT_EQ(one({.partition = 0, .replicas = {2, 3}, .throttle_bytes_per_sec = -1}).code(),
            ErrorCode::kInvalidArgument);
}

// One bad order does not stop the others; a partition named twice is
// refused the second time.
TEST(Reassignment, OrdersAreJudgedOneByOne) {
  const ClusterSnapshot s = cluster();
  TopicAssignment t = s.topics.at("t");
  bool changed = false;
  auto r = apply(s,
                 {{.partition = 0, .replicas = {2, 9}},
                  {.partition = 1, .replicas = {1, 2}},
                  {.partition = 1, .replicas = {1, 3}}},
                 &t, &changed);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].code(), ErrorCode::kInvalidReplicaAssignment);
  EXPECT_TRUE(r[1].ok()) << r[1].to_string();
  EXPECT_EQ(r[2].code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(changed);
  EXPECT_EQ(t.reassigning.size(), 1u);
  EXPECT_EQ(t.reassigning.at(1).target, (Ids{1, 2}));
}

TEST(Reassignment, ViewsAndThrottle) {
  ClusterSnapshot s = cluster();
  TopicAssignment& stored = s.topics.at("t");
  stored.replicas[0] = {1, 2, 3};
  stored.reassigning[0] = {.target = {2, 3}, .original = {1, 2}, .throttle_bytes_per_sec = 500};
  stored.reassigning[1] = {.target = {1, 3}, .original = {2, 3}, .throttle_bytes_per_sec = 900};
  EXPECT_EQ(count_reassignments(s), 2u);
  EXPECT_EQ(reassignment_throttle_rate(s), 500);

  auto views = ongoing_reassignments(s);
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[0].topic, "t");
  EXPECT_EQ(views[0].partition, 0);
  EXPECT_EQ(views[0].replicas, (Ids{1, 2, 3}));
  EXPECT_EQ(views[0].target, (Ids{2, 3}));
  EXPECT_EQ(views[0].adding, (Ids{3}));
  EXPECT_EQ(views[0].removing, (Ids{1}));
  EXPECT_EQ(views[0].isr, (Ids{1, 2}));
  EXPECT_EQ(views[0].leader, 1);
  EXPECT_EQ(views[0].throttle_bytes_per_sec, 500);
  EXPECT_EQ(views[1].removing, (Ids{2}));  // before the controller's first step
  EXPECT_EQ(views[1].leader, kNoBroker);   // no partition key yet

  // Only the replica being added, while it is not in sync.
  EXPECT_EQ(reassignment_throttle(s, "t", 0, 3), 500);
  EXPECT_EQ(reassignment_throttle(s, "t", 0, 2), 0);
  EXPECT_EQ(reassignment_throttle(s, "t", 0, 1), 0);
  EXPECT_EQ(reassignment_throttle(s, "other", 0, 3), 0);
  s.partitions[PartitionKey{"t", 0}].isr = {1, 2, 3};
  EXPECT_EQ(reassignment_throttle(s, "t", 0, 3), 0);
  // Unthrottled moves do not count.
  stored.reassigning[0].throttle_bytes_per_sec = 0;
  s.partitions[PartitionKey{"t", 0}].isr = {1, 2};
  EXPECT_EQ(reassignment_throttle(s, "t", 0, 3), 0);
  EXPECT_EQ(reassignment_throttle_rate(s), 900);
}

}  // namespace
}  // namespace spillway::broker::cluster
