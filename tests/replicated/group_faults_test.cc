// Issue 16's group runs: a librdkafka producer (acks=all, idempotent) and a
// consumer group of two librdkafka consumers, each bootstrapped to a
// different broker (both must find the same coordinator), across the
// SIGKILL of a partition leader.
//
// (a) The killed leader does not coordinate the group: the group goes on
//     without a rebalance, and its members are handed every acknowledged
//     record exactly once, at the offset it was acknowledged at.
// (b) The killed leader is also the group's coordinator: the group moves to
//     another broker, which must serve the offsets the group committed
//     before (kept in etcd, cluster/cluster_offsets.h). The members use
//     auto.offset.reset=latest (the group's first offsets are committed
//     before they join), so offsets lost with the coordinator would skip
//     records, which the checker counts as lost. Records consumed
//     after the last commit before the kill are handed again after the
//     rebalance (Kafka's at-least-once without transactions): counted and
//     printed, not asserted.
//
// The group names are picked with cluster::group_coordinator, the function
// every broker uses to place groups.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <thread>

#include "acked_producer.h"
#include "cluster/group_placement.h"
#include "cluster_harness.h"
#include "fault_run.h"
#include "group_consumer.h"

namespace spillway::testing {
namespace {

constexpr int kPartitions = 3;
constexpr int64_t kBatch = 1'500;

template <typename Pred>
bool wait_until(Pred pred, std::chrono::milliseconds guard = std::chrono::seconds(90)) {
  const auto deadline = std::chrono::steady_clock::now() + guard;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

struct GroupRun {
  bool kill_coordinator = false;
  std::string reset;  // auto.offset.reset
};

FaultTotals run_group(const GroupRun& run) {
  FaultTotals totals{.rounds = 1};
  Result<std::unique_ptr<ClusterHarness>> started = ClusterHarness::start({});
  EXPECT_TRUE(started.ok()) << started.status().to_string();
  if (!started.ok()) return totals;
  ClusterHarness& cluster = **started;
  const std::string topic = "group-kill-leader";
  Status created = cluster.create_topic(topic, kPartitions, 3, {{"min.insync.replicas", "2"}});
  EXPECT_TRUE(created.ok()) << created.to_string() << "\n" << cluster.report(topic);
  EXPECT_TRUE(wait_healthy(cluster, topic, 3));
  if (::testing::Test::HasFailure()) return totals;

  const int victim = leader_index(cluster, topic, 0);
  EXPECT_GE(victim, 0);
  if (victim < 0) return totals;
  broker::cluster::ClusterSnapshot all_live;
  for (int i = 0; i < cluster.size(); ++i) all_live.brokers[ClusterHarness::id_of(i)] = {};
  std::string group;
  for (int i = 0; group.empty(); ++i) {
    const std::string name = "readers-" + std::to_string(i);
    const bool coordinated_by_victim =
        broker::cluster::group_coordinator(all_live, name) == ClusterHarness::id_of(victim);
    if (coordinated_by_victim == run.kill_coordinator) group = name;
  }

  // The group starts at offset 0 by a commit, so auto.offset.reset only
  // matters when the committed offsets are gone.
  const std::string committed =
      GroupConsumer::commit_start(cluster.bootstrap(), group, topic, kPartitions, 0);
  EXPECT_EQ(committed, "");
  GroupConsumer a(cluster.broker(0).kafka_address(), group, topic, run.reset);
  GroupConsumer b(cluster.broker(1).kafka_address(), group, topic, run.reset);
  a.start();
  b.start();
  EXPECT_TRUE(wait_until([&] {
    return a.assigned() > 0 && b.assigned() > 0 && a.assigned() + b.assigned() == kPartitions;
  })) << "the group never shared the "
      << kPartitions << " partitions between its two members (" << a.assigned() << " and "
      << b.assigned() << " assigned)";
  if (::testing::Test::HasFailure()) return totals;

  AckedProducer producer(cluster.bootstrap(), topic);
  producer.start();
  EXPECT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();
  // The group has consumed and committed part of it before the kill.
  EXPECT_TRUE(wait_until([&] { return a.consumed() + b.consumed() >= kBatch; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // an auto-commit or two
  cluster.stop_broker(victim, SIGKILL);
  EXPECT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();
  if (!run.kill_coordinator) {
    EXPECT_TRUE(cluster.start_broker(victim).ok());
    EXPECT_TRUE(wait_healthy(cluster, topic, 3));
  }
  // A coordinator that came back would take the group back, with the
  // offsets of its own disk: it stays down until the group has read
  // everything, from its new coordinator.
  EXPECT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();
  producer.stop();

  const std::vector<AckedRecord> acked = producer.records();
  EXPECT_FALSE(acked.empty());
  auto consumed_all = [&] {
    std::map<std::string, int> seen;
    for (const GroupConsumer* c : {&a, &b}) {
      for (const ConsumedRecord& r : c->records()) ++seen[r.value];
    }
    for (const AckedRecord& r : acked) {
      if (seen.count(r.value) == 0) return false;
    }
    return true;
  };
  const bool complete = wait_until(consumed_all, std::chrono::seconds(120));
  a.stop();
  b.stop();
  EXPECT_TRUE(complete) << "the group did not consume every acknowledged record: "
                        << a.first_error() << " / " << b.first_error();

  // Every acknowledged record handed to the group where it was
  // acknowledged; how many were handed more than once.
  std::map<std::string, std::vector<ConsumedRecord>> handed;
  for (const GroupConsumer* c : {&a, &b}) {
    for (ConsumedRecord& r : c->records()) handed[r.value].push_back(std::move(r));
  }
  totals.acked = static_cast<int64_t>(acked.size());
  for (const AckedRecord& r : acked) {
    auto it = handed.find(r.value);
    if (it == handed.end()) {
      ++totals.lost;
      if (totals.first_problem.empty()) totals.first_problem = r.value + " never consumed";
    } else if (it->second[0].partition != r.partition || it->second[0].offset != r.offset) {
      ++totals.lost;
      if (totals.first_problem.empty()) {
        totals.first_problem = r.value + " consumed at " + std::to_string(it->second[0].partition) +
                               "/" + std::to_string(it->second[0].offset) + ", acknowledged at " +
                               std::to_string(r.partition) + "/" + std::to_string(r.offset);
      }
    }
  }
  for (const auto& [value, copies] : handed) {
    if (copies.size() < 2) continue;
    totals.duplicates += static_cast<int64_t>(copies.size()) - 1;
    if (totals.first_problem.empty()) totals.first_problem = value + " consumed twice";
  }
  return totals;
}

TEST(ReplicatedGroups, ConsumerGroupAcrossLeaderKill) {
  const FaultTotals t = run_group({.kill_coordinator = false, .reset = "earliest"});
  print_totals("consumer group across a leader SIGKILL", t);
  EXPECT_GT(t.acked, 0);
  EXPECT_EQ(t.lost, 0) << t.first_problem;
  EXPECT_EQ(t.duplicates, 0) << t.first_problem;
}

TEST(ReplicatedGroups, ConsumerGroupAcrossCoordinatorAndLeaderKill) {
  const FaultTotals t = run_group({.kill_coordinator = true, .reset = "latest"});
  print_totals(
      "consumer group across its coordinator's and a leader's SIGKILL (redelivered "
      "records are the duplicates)",
      t);
  EXPECT_GT(t.acked, 0);
  EXPECT_EQ(t.lost, 0) << t.first_problem;
}

}  // namespace
}  // namespace spillway::testing
