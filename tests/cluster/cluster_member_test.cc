// Three EtcdClusterMembers in one process over the in-memory etcd: the
// controller election, failover with fencing by epoch, leader elections
// from the ISR, controlled shutdown, preferred leaders, bad values,
// compaction. Leases expire only when a test says so; the io_context is
// run until the expected state shows up (the loop's bound is a safety
// net, not a timing assertion).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>

#include "cluster/etcd_cluster_member.h"
#include "memory_kv_store.h"

namespace spillway::broker::cluster {
namespace {

using testing::MemoryEtcd;
using testing::MemoryKvStore;

class ClusterMemberTest : public ::testing::Test {
 protected:
  struct Node {
    std::unique_ptr<MemoryKvStore> store;
    std::unique_ptr<EtcdClusterMember> member;
    int fenced = 0;
    bool ready = false;
  };

  void start(int n, std::vector<std::string> racks = {}) {
    for (int i = 0; i < n; ++i) {
      MemberOptions o;
      o.cluster_name = "test";
      o.broker_id = i;
      o.native_address = "127.0.0.1:" + std::to_string(9000 + i);
      o.rack = i < static_cast<int>(racks.size()) ? racks[static_cast<size_t>(i)] : "";
      o.lease_ttl_ms = 300;
      auto node = std::make_unique<Node>();
      node->store = std::make_unique<MemoryKvStore>(io_, etcd_);
      node->member = std::make_unique<EtcdClusterMember>(io_, *node->store, o);
      Node* raw = node.get();
      node->member->set_on_fenced([raw] { ++raw->fenced; });
      node->member->start([raw](Status st) {
        ASSERT_TRUE(st.ok()) << st.to_string();
        raw->ready = true;
      });
      nodes_.push_back(std::move(node));
    }
    ASSERT_TRUE(run_until([&] {
      for (auto& node : nodes_) {
        if (!node->ready) return false;
      }
      return controller() != nullptr && all_see_controller();
    }));
  }

  void TearDown() override {
    int stopped = 0;
    for (auto& node : nodes_) node->member->stop([&] { ++stopped; });
    (void)run_until([&] { return stopped == static_cast<int>(nodes_.size()); });
  }

  template <typename Pred>
  bool run_until(Pred pred) {
    for (int i = 0; i < 20'000 && !pred(); ++i) io_.run_one_for(std::chrono::milliseconds(5));
    return pred();
  }

  EtcdClusterMember* controller() {
    EtcdClusterMember* found = nullptr;
    for (auto& node : nodes_) {
      if (node->member->controller_epoch() != 0) {
        if (found) return nullptr;  // two at once would be a bug; never "one"
        found = node->member.get();
      }
    }
    return found;
  }
  int controller_index() {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i]->member.get() == controller()) return static_cast<int>(i);
    }
    return -1;
  }
  bool all_see_controller() {
    EtcdClusterMember* c = controller();
    if (!c) return false;
    for (auto& node : nodes_) {
      if (node->member->broker_epoch() == 0) continue;
      if (node->member->snapshot()->controller_epoch != c->controller_epoch()) return false;
    }
    return true;
  }

  Status create(EtcdClusterMember& m, NewTopic t) {
    std::optional<Status> result;
    m.create_topic(std::move(t), [&](Status st) { result = std::move(st); });
    EXPECT_TRUE(run_until([&] { return result.has_value(); }));
    return result.value_or(Status(ErrorCode::kTimeout, "no answer"));
  }

  // Waits until every live member's snapshot has caught up with etcd.
  bool settle() {
    return run_until([&] {
      for (auto& node : nodes_) {
        if (node->member->broker_epoch() == 0 || !node->store->reachable()) continue;
        if (node->member->snapshot()->revision != etcd_.revision()) return false;
      }
      return true;
    });
  }

  // A range-for over view()->x would outlive the temporary snapshot: keep
  // the snapshots iterated alive until the test ends.
  const ClusterSnapshot* held(SnapshotPtr s) {
    kept_.push_back(s);
    return s.get();
  }
  std::vector<SnapshotPtr> kept_;

  SnapshotPtr view() { return nodes_[static_cast<size_t>(controller_index())]->member->snapshot(); }

  asio::io_context io_;
  MemoryEtcd etcd_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

TEST_F(ClusterMemberTest, OneControllerElected) {
  start(3);
  EtcdClusterMember* c = controller();
  ASSERT_NE(c, nullptr);
  EXPECT_GT(c->controller_epoch(), 0);
  ASSERT_TRUE(settle());
  for (auto& node : nodes_) {
    auto s = node->member->snapshot();
    EXPECT_EQ(s->brokers.size(), 3u);
    EXPECT_EQ(s->controller_epoch, c->controller_epoch());
    EXPECT_EQ(s->brokers.at(node->member->snapshot()->controller).epoch > 0, true);
    EXPECT_GT(node->member->broker_epoch(), 0);
  }
}

TEST_F(ClusterMemberTest, ControllerLeaseExpiryHandsOverAndFencesTheOldOne) {
  start(3);
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"t", 3, 3, {}}).ok());
  ASSERT_TRUE(settle());
  const int old_index = controller_index();
  EtcdClusterMember* old = controller();
  const int64_t old_epoch = old->controller_epoch();
  const PartitionState before = *view()->partition("t", 0);

  // Cut the controller off, then let its lease run out.
  nodes_[static_cast<size_t>(old_index)]->store->set_reachable(false);
  etcd_.expire_lease(old->lease());
  ASSERT_TRUE(run_until([&] {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (static_cast<int>(i) == old_index) continue;
      if (nodes_[i]->member->controller_epoch() > old_epoch) return true;
    }
    return false;
  }));
  ASSERT_TRUE(run_until([&] { return nodes_[static_cast<size_t>(old_index)]->fenced > 0; }));
  EXPECT_EQ(old->controller_epoch(), 0);
  // Its own view no longer has it registered or in control, so nothing it
  // serves from the view (Kafka Metadata) sends clients back to it.
  EXPECT_EQ(old->snapshot()->brokers.count(old_index), 0u);
  EXPECT_NE(old->snapshot()->controller, old_index);

  // A write in the deposed controller's name fails on its compare.
  ClusterKeys keys("test");
  PartitionState forged = before;
  forged.leader_epoch += 10;
  ControllerTxn t{{KeyWrite{keys.partition("t", 0), view()->partition("t", 0)->mod_revision,
                            encode_partition(forged)}},
                  "forged"};
  std::vector<Compare> cmp;
  std::vector<TxnOp> ops;
  to_txn(t, keys, old_epoch, &cmp, &ops);
  MemoryKvStore other(io_, etcd_);
  std::optional<Result<TxnResult>> r;
  other.txn(cmp, ops, {}, [&](Result<TxnResult> x) { r = std::move(x); });
  ASSERT_TRUE(run_until([&] { return r.has_value(); }));
  ASSERT_TRUE(r->ok());
  EXPECT_FALSE((*r)->succeeded);

  // Back on the network, the old controller registers with a new epoch and
  // follows the new controller.
  nodes_[static_cast<size_t>(old_index)]->store->set_reachable(true);
  ASSERT_TRUE(run_until([&] {
    return old->broker_epoch() > 0 && old->snapshot()->brokers.size() == 3 && all_see_controller();
  }));
  EXPECT_GT(controller()->controller_epoch(), old_epoch);
}

TEST_F(ClusterMemberTest, BrokerLossElectsFromIsrWithNewEpoch) {
  start(3);
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"t", 6, 2, {}}).ok());
  ASSERT_TRUE(settle());
  // A broker that is not the controller and leads something.
  const int c = controller_index();
  const int victim = (c + 1) % 3;
  const SnapshotPtr before = view();
  std::vector<std::pair<PartitionKey, PartitionState>> led;
  for (const auto& [pk, st] : before->partitions) {
    if (st.leader == victim) led.emplace_back(pk, st);
  }
  ASSERT_FALSE(led.empty());
  nodes_[static_cast<size_t>(victim)]->store->set_reachable(false);
  etcd_.expire_lease(nodes_[static_cast<size_t>(victim)]->member->lease());
  ASSERT_TRUE(run_until([&] {
    SnapshotPtr s = view();
    for (const auto& [pk, old] : led) {
      const PartitionState* now = s->partition(pk.topic, pk.partition);
      if (!now || now->leader == victim) return false;
    }
    return true;
  }));
  SnapshotPtr s = view();
  for (const auto& [pk, old] : led) {
    const PartitionState* now = s->partition(pk.topic, pk.partition);
    EXPECT_NE(now->leader, kNoBroker);
    EXPECT_NE(std::find(old.isr.begin(), old.isr.end(), now->leader), old.isr.end());
    EXPECT_EQ(now->leader_epoch, old.leader_epoch + 1);
    EXPECT_EQ(std::find(now->isr.begin(), now->isr.end(), victim), now->isr.end());
    EXPECT_EQ(now->controller_epoch, controller()->controller_epoch());
  }
  // Followers on the lost broker left the ISR too, without a new epoch.
  ASSERT_TRUE(run_until([&] {
    for (const auto& [pk, st] : held(view())->partitions) {
      if (std::find(st.isr.begin(), st.isr.end(), victim) != st.isr.end()) return false;
    }
    return true;
  }));
}

TEST_F(ClusterMemberTest, NoLiveIsrMemberGoesOfflineThenReturns) {
  start(3);
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"solo", 3, 1, {}}).ok());
  ASSERT_TRUE(settle());
  const int victim = (controller_index() + 1) % 3;
  PartitionKey pk;
  PartitionState old;
  for (const auto& [k, st] : held(view())->partitions) {
    if (st.leader == victim) pk = k, old = st;
  }
  ASSERT_EQ(old.leader, victim);
  nodes_[static_cast<size_t>(victim)]->store->set_reachable(false);
  etcd_.expire_lease(nodes_[static_cast<size_t>(victim)]->member->lease());
  ASSERT_TRUE(
      run_until([&] { return view()->partition(pk.topic, pk.partition)->leader == kNoBroker; }));
  PartitionState offline = *view()->partition(pk.topic, pk.partition);
  EXPECT_EQ(offline.leader_epoch, old.leader_epoch + 1);
  EXPECT_EQ(offline.isr, std::vector<BrokerId>{victim});

  nodes_[static_cast<size_t>(victim)]->store->set_reachable(true);
  ASSERT_TRUE(
      run_until([&] { return view()->partition(pk.topic, pk.partition)->leader == victim; }));
  EXPECT_EQ(view()->partition(pk.topic, pk.partition)->leader_epoch, old.leader_epoch + 2);
}

// An ISR shrunk by its leader (alter_isr), then the leader lost: a clean
// topic goes offline, an unclean one elects the replica outside the ISR.
TEST_F(ClusterMemberTest, UncleanElectionOnlyWhenTheTopicAllowsIt) {
  start(3);
  TopicSettings unclean;
  unclean.unclean_leader_election = 1;
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"clean", 3, 2, {}}).ok());
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"dirty", 3, 2, unclean}).ok());
  ASSERT_TRUE(settle());
  const int victim = (controller_index() + 1) % 3;
  std::map<PartitionKey, PartitionState> shrunk;
  for (const auto& [pk, st] : held(view())->partitions) {
    if (st.leader != victim) continue;
    std::optional<Result<PartitionState>> r;
    nodes_[static_cast<size_t>(victim)]->member->alter_isr(
        pk, st, {victim}, [&](Result<PartitionState> x) { r = std::move(x); });
    ASSERT_TRUE(run_until([&] { return r.has_value(); }));
    ASSERT_TRUE(r->ok()) << r->status().to_string();
    EXPECT_EQ((*r)->isr, std::vector<BrokerId>{victim});
    shrunk[pk] = **r;
    // The same expected state again: its mod_revision is stale now.
    std::optional<Result<PartitionState>> again;
    nodes_[static_cast<size_t>(victim)]->member->alter_isr(
        pk, st, {victim}, [&](Result<PartitionState> x) { again = std::move(x); });
    ASSERT_TRUE(run_until([&] { return again.has_value(); }));
    EXPECT_EQ(again->status().code(), ErrorCode::kFencedLeaderEpoch);
  }
  ASSERT_FALSE(shrunk.empty());
  ASSERT_TRUE(settle());
  nodes_[static_cast<size_t>(victim)]->store->set_reachable(false);
  etcd_.expire_lease(nodes_[static_cast<size_t>(victim)]->member->lease());
  ASSERT_TRUE(run_until([&] {
    for (const auto& [pk, st] : shrunk) {
      if (view()->partition(pk.topic, pk.partition)->leader == victim) return false;
    }
    return true;
  }));
  for (const auto& [pk, st] : shrunk) {
    const PartitionState* now = view()->partition(pk.topic, pk.partition);
    if (pk.topic == "clean") {
      EXPECT_EQ(now->leader, kNoBroker);
      EXPECT_EQ(now->isr, std::vector<BrokerId>{victim});
    } else {
      EXPECT_NE(now->leader, kNoBroker);
      EXPECT_NE(now->leader, victim);
      EXPECT_EQ(now->isr, std::vector<BrokerId>{now->leader});
    }
  }
}

TEST_F(ClusterMemberTest, ControlledShutdownMovesLeadershipBeforeDone) {
  start(3);
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"t", 6, 3, {}}).ok());
  ASSERT_TRUE(settle());
  const int leaving = (controller_index() + 1) % 3;
  EtcdClusterMember& m = *nodes_[static_cast<size_t>(leaving)]->member;
  int led = 0;
  for (const auto& [pk, st] : held(view())->partitions) led += st.leader == leaving;
  ASSERT_GT(led, 0);
  std::optional<Status> done;
  int still_led_at_done = -1;
  m.controlled_shutdown(60'000, [&](Status st) {
    done = std::move(st);
    still_led_at_done = 0;
    for (const auto& [pk, ps] : held(m.snapshot())->partitions)
      still_led_at_done += ps.leader == leaving;
  });
  ASSERT_TRUE(run_until([&] { return done.has_value(); }));
  EXPECT_TRUE(done->ok()) << done->to_string();
  EXPECT_EQ(still_led_at_done, 0);
  EXPECT_TRUE(m.snapshot()->brokers.at(leaving).shutting_down);
  // The broker stays in the ISRs (it still replicates until it exits).
  for (const auto& [pk, st] : held(view())->partitions) EXPECT_EQ(st.isr.size(), 3u);
}

TEST_F(ClusterMemberTest, PreferredLeaderRegainsLeadership) {
  start(3);
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"t", 3, 2, {}}).ok());
  ASSERT_TRUE(settle());
  const int victim = (controller_index() + 1) % 3;
  const TopicAssignment topic = view()->topics.at("t");
  int32_t p = -1;
  for (size_t i = 0; i < topic.replicas.size(); ++i) {
    if (topic.replicas[i].front() == victim) p = static_cast<int32_t>(i);
  }
  ASSERT_GE(p, 0);
  const int32_t epoch0 = view()->partition("t", p)->leader_epoch;
  nodes_[static_cast<size_t>(victim)]->store->set_reachable(false);
  etcd_.expire_lease(nodes_[static_cast<size_t>(victim)]->member->lease());
  ASSERT_TRUE(run_until([&] {
    const PartitionState* s = view()->partition("t", p);
    return s->leader != victim && s->isr.size() == 1;
  }));
  const BrokerId interim = view()->partition("t", p)->leader;
  nodes_[static_cast<size_t>(victim)]->store->set_reachable(true);
  ASSERT_TRUE(run_until([&] { return view()->brokers.contains(victim); }));
  ASSERT_TRUE(settle());
  // The interim leader takes the caught-up preferred replica back in.
  PartitionState st = *nodes_[static_cast<size_t>(interim)]->member->snapshot()->partition("t", p);
  std::optional<Result<PartitionState>> r;
  nodes_[static_cast<size_t>(interim)]->member->alter_isr(
      PartitionKey{"t", p}, st, {interim, victim},
      [&](Result<PartitionState> x) { r = std::move(x); });
  ASSERT_TRUE(run_until([&] { return r.has_value(); }));
  ASSERT_TRUE(r->ok()) << r->status().to_string();
  ASSERT_TRUE(run_until([&] { return view()->partition("t", p)->leader == victim; }));
  EXPECT_EQ(view()->partition("t", p)->leader_epoch, epoch0 + 2);
}

TEST_F(ClusterMemberTest, RackAwareCreate) {
  start(3, {"a", "b", "c"});
  ASSERT_TRUE(create(*nodes_[1]->member, NewTopic{"t", 6, 3, {}}).ok());
  ASSERT_TRUE(create(*nodes_[1]->member, NewTopic{"u", 6, 2, {}}).ok());
  ASSERT_TRUE(settle());
  std::map<BrokerId, int> leads;
  for (const auto& reps : held(view())->topics.at("u").replicas) {
    EXPECT_NE(reps[0], reps[1]);
    ++leads[reps[0]];
  }
  EXPECT_EQ(leads.size(), 3u);
  for (const auto& reps : held(view())->topics.at("t").replicas) {
    std::set<BrokerId> ids(reps.begin(), reps.end());
    EXPECT_EQ(ids.size(), 3u);
  }
}

TEST_F(ClusterMemberTest, CreateTwiceAndDelete) {
  start(3);
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"t", 2, 2, {}}).ok());
  ASSERT_TRUE(settle());
  EXPECT_EQ(create(*nodes_[1]->member, NewTopic{"t", 2, 2, {}}).code(), ErrorCode::kTopicExists);
  // Two at once, before either shows in a snapshot: exactly one wins.
  std::optional<Status> a, b;
  nodes_[0]->member->create_topic(NewTopic{"race", 1, 1, {}}, [&](Status s) { a = std::move(s); });
  nodes_[1]->member->create_topic(NewTopic{"race", 1, 1, {}}, [&](Status s) { b = std::move(s); });
  ASSERT_TRUE(run_until([&] { return a && b; }));
  EXPECT_NE(a->ok(), b->ok());
  EXPECT_EQ((a->ok() ? *b : *a).code(), ErrorCode::kTopicExists);
  EXPECT_EQ(create(*nodes_[0]->member, NewTopic{"big", 1, 4, {}}).code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(create(*nodes_[0]->member, NewTopic{"bad name", 1, 1, {}}).code(),
            ErrorCode::kInvalidArgument);

  std::optional<Status> del;
  nodes_[2]->member->delete_topic("t", [&](Status s) { del = std::move(s); });
  ASSERT_TRUE(run_until([&] { return del.has_value(); }));
  EXPECT_TRUE(del->ok());
  ASSERT_TRUE(settle());
  EXPECT_FALSE(view()->topics.contains("t"));
  EXPECT_EQ(view()->partition("t", 0), nullptr);
  del.reset();
  nodes_[2]->member->delete_topic("t", [&](Status s) { del = std::move(s); });
  ASSERT_TRUE(run_until([&] { return del.has_value(); }));
  EXPECT_EQ(del->code(), ErrorCode::kUnknownTopic);
}

TEST_F(ClusterMemberTest, SecondBrokerWithTheSameIdIsRefused) {
  start(1);
  MemoryKvStore store(io_, etcd_);
  MemberOptions o;
  o.cluster_name = "test";
  o.broker_id = 0;
  EtcdClusterMember twin(io_, store, o);
  std::optional<Status> st;
  twin.start([&](Status s) { st = std::move(s); });
  ASSERT_TRUE(run_until([&] { return st.has_value(); }));
  EXPECT_EQ(st->code(), ErrorCode::kConfig);
  EXPECT_NE(st->message().find("broker id 0"), std::string_view::npos);
}

TEST_F(ClusterMemberTest, MalformedValuesAreIgnored) {
  start(3);
  const std::string p = "/spillway/test/";
  etcd_.put(p + "topics/bad", "{not json");
  etcd_.put(p + "topics/deep", std::string(100'000, '['));
  etcd_.put(p + "topics/huge", std::string(kMaxValueBytes + 10, ' '));
  etcd_.put(p + "partitions/bad/0", R"({"leader":"x"})");
  etcd_.put(p + "brokers/7", R"({"native":5})");
  etcd_.put(p + "brokers/abc", R"({"native":"h:1"})");
  etcd_.put(p + "whatever", "\xff\xfe");
  ASSERT_TRUE(settle());
  SnapshotPtr s = view();
  EXPECT_EQ(s->topics.size(), 0u);
  EXPECT_EQ(s->brokers.size(), 3u);
  EXPECT_TRUE(s->partitions.empty());
  // The cluster still works.
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"good", 2, 2, {}}).ok());
  ASSERT_TRUE(settle());
  EXPECT_EQ(view()->topics.size(), 1u);
  // A good topic whose partition key is replaced by garbage loses that
  // partition from the snapshot, nothing else.
  etcd_.put(p + "partitions/good/1", "[]");
  ASSERT_TRUE(settle());
  EXPECT_NE(view()->partition("good", 0), nullptr);
  EXPECT_EQ(view()->partition("good", 1), nullptr);
}

TEST_F(ClusterMemberTest, CompactionDuringTheWatchRelists) {
  start(3);
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"a", 2, 2, {}}).ok());
  ASSERT_TRUE(settle());
  // The watches end as etcd ends a watcher behind a compaction; more
  // changes land before the members list again, then etcd compacts past
  // the revision they would resume from.
  etcd_.end_watches(ErrorCode::kCompacted);
  const std::string p = "/spillway/test/";
  etcd_.put(p + "topics/b", encode_topic(TopicAssignment{"b", {{0, 1}}, {}, {}, 0}));
  etcd_.erase(p + "topics/a");
  etcd_.compact(etcd_.revision());
  ASSERT_TRUE(settle());
  for (auto& node : nodes_) {
    SnapshotPtr s = node->member->snapshot();
    EXPECT_FALSE(s->topics.contains("a"));
    EXPECT_TRUE(s->topics.contains("b"));
    EXPECT_EQ(s->brokers.size(), 3u);
  }
  // And the new watch delivers what follows.
  etcd_.put(p + "topics/c", encode_topic(TopicAssignment{"c", {{2}}, {}, {}, 0}));
  ASSERT_TRUE(settle());
  for (auto& node : nodes_) EXPECT_TRUE(node->member->snapshot()->topics.contains("c"));
}

TEST_F(ClusterMemberTest, ReassignMovesReplicasThroughTheIsr) {
  start(3);
  ASSERT_TRUE(create(*nodes_[0]->member, NewTopic{"t", 1, 2, {}}).ok());
  ASSERT_TRUE(settle());
  const std::vector<BrokerId> old = view()->topics.at("t").replicas[0];
  BrokerId spare = 0;
  while (std::find(old.begin(), old.end(), spare) != old.end()) ++spare;
  const std::vector<BrokerId> target{spare, old[1]};
  std::optional<ReassignOutcome> outcome;
  nodes_[0]->member->reassign("t", {ReassignOrder{.partition = 0, .replicas = target}},
                              [&](ReassignOutcome o) { outcome = std::move(o); });
  ASSERT_TRUE(run_until([&] { return outcome.has_value(); }));
  ASSERT_EQ(outcome->results.size(), 1u);
  ASSERT_TRUE(outcome->results[0].ok()) << outcome->results[0].to_string();
  EXPECT_GT(outcome->revision, 0);
  // The controller adds the new replica; it is not in the ISR yet.
  ASSERT_TRUE(run_until([&] { return view()->topics.at("t").replicas[0].size() == 3; }));
  ASSERT_TRUE(settle());
  EXPECT_EQ(view()->partition("t", 0)->leader, old[0]);
  // The leader takes it into the ISR once it caught up.
  PartitionState ps = *view()->partition("t", 0);
  std::optional<Result<PartitionState>> r;
  nodes_[static_cast<size_t>(ps.leader)]->member->alter_isr(
      PartitionKey{"t", 0}, ps, {old[0], old[1], spare},
      [&](Result<PartitionState> x) { r = std::move(x); });
  ASSERT_TRUE(run_until([&] { return r.has_value(); }));
  ASSERT_TRUE(r->ok()) << r->status().to_string();
  // Leadership moves into the target, then the old replica goes.
  ASSERT_TRUE(run_until([&] {
    const TopicAssignment t = view()->topics.at("t");
    return t.replicas[0] == target && t.reassigning.empty();
  }));
  ASSERT_TRUE(settle());
  const PartitionState* now = view()->partition("t", 0);
  EXPECT_NE(std::find(target.begin(), target.end(), now->leader), target.end());
  EXPECT_EQ(std::find(now->isr.begin(), now->isr.end(), old[0]), now->isr.end());
  EXPECT_GT(now->leader_epoch, ps.leader_epoch);
}

}  // namespace
}  // namespace spillway::broker::cluster
