// EtcdClusterMember over the real etcd client against a real 3-member etcd
// (tests/support/etcd_cluster.h): registration, one controller, topic
// creation, a broker's lease revoked (as if expired) -> its partitions get
// new leaders from the ISR, the controller's lease revoked -> a controller
// with a higher epoch.
#include <chrono>
#include <memory>
#include <optional>

#include <gtest/gtest.h>

#include "cluster/etcd/etcd_kv_store.h"
#include "cluster/etcd_cluster_member.h"
#include "etcd_cluster.h"

namespace spillway::broker::cluster {
namespace {

using etcd::EtcdKvStore;

class EtcdClusterMemberTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto etcd = testing::EtcdCluster::start(3);
    ASSERT_TRUE(etcd.ok()) << etcd.status().to_string();
    etcd_ = std::move(*etcd);
    for (int i = 0; i < 3; ++i) {
      MemberOptions o;
      o.cluster_name = "real";
      o.broker_id = i;
      o.native_address = "127.0.0.1:" + std::to_string(9100 + i);
      o.lease_ttl_ms = 2'000;
      stores_.push_back(std::make_unique<EtcdKvStore>(io_, etcd_->endpoint_list()));
      members_.push_back(std::make_unique<EtcdClusterMember>(io_, *stores_.back(), o));
    }
    int ready = 0;
    for (auto& m : members_) {
      m->start([&](Status st) {
        EXPECT_TRUE(st.ok()) << st.to_string();
        ++ready;
      });
    }
    ASSERT_TRUE(run_until([&] { return ready == 3 && controller() >= 0; }));
  }

  void TearDown() override {
    int stopped = 0;
    for (auto& m : members_) m->stop([&] { ++stopped; });
    (void)run_until([&] { return stopped == static_cast<int>(members_.size()); });
    members_.clear();
    stores_.clear();
  }

  template <typename Pred>
  bool run_until(Pred pred) {
    for (int i = 0; i < 20'000 && !pred(); ++i) io_.run_one_for(std::chrono::milliseconds(5));
    return pred();
  }

  int controller() {
    int found = -1;
    for (size_t i = 0; i < members_.size(); ++i) {
      if (members_[i]->controller_epoch() != 0) found = static_cast<int>(i);
    }
    return found;
  }

  void revoke(int64_t lease) {
    std::optional<Result<bool>> r;
    stores_[0]->lease_revoke(lease, [&](Result<bool> x) { r = std::move(x); });
    ASSERT_TRUE(run_until([&] { return r.has_value(); }));
  }

  asio::io_context io_;
  std::unique_ptr<testing::EtcdCluster> etcd_;
  std::vector<std::unique_ptr<EtcdKvStore>> stores_;
  std::vector<std::unique_ptr<EtcdClusterMember>> members_;
};

TEST_F(EtcdClusterMemberTest, FailoverOfALeaderAndOfTheController) {
  const int c = controller();
  const int64_t epoch = members_[static_cast<size_t>(c)]->controller_epoch();
  std::optional<Status> created;
  members_[0]->create_topic(NewTopic{"t", 3, 3, {}}, [&](Status s) { created = std::move(s); });
  ASSERT_TRUE(run_until([&] { return created.has_value(); }));
  ASSERT_TRUE(created->ok()) << created->to_string();
  auto view = [&] { return members_[static_cast<size_t>(c)]->snapshot(); };
  ASSERT_TRUE(run_until([&] { return view()->partitions.size() == 3; }));

  // A broker that is not the controller loses its lease.
  const int victim = (c + 1) % 3;
  const SnapshotPtr before = view();
  revoke(members_[static_cast<size_t>(victim)]->lease());
  ASSERT_TRUE(run_until([&] {
    SnapshotPtr s = view();
    for (const auto& [pk, st] : s->partitions) {
      if (st.leader == victim || st.leader == kNoBroker) return false;
    }
    return true;
  }));
  SnapshotPtr after = view();
  for (const auto& [pk, st] : before->partitions) {
    if (st.leader != victim) continue;
    const PartitionState* now = after->partition(pk.topic, pk.partition);
    EXPECT_EQ(now->leader_epoch, st.leader_epoch + 1);
    EXPECT_NE(std::find(st.isr.begin(), st.isr.end(), now->leader), st.isr.end());
  }
  // It notices, and registers again with a new broker epoch.
  ASSERT_TRUE(run_until([&] { return members_[static_cast<size_t>(victim)]->broker_epoch() > 0 &&
                                     view()->brokers.size() == 3; }));

  // The controller loses its lease: another takes over with a higher epoch.
  revoke(members_[static_cast<size_t>(c)]->lease());
  ASSERT_TRUE(run_until([&] {
    const int now = controller();
    return now >= 0 && now != c && members_[static_cast<size_t>(now)]->controller_epoch() > epoch;
  }));
}

}  // namespace
}  // namespace spillway::broker::cluster
