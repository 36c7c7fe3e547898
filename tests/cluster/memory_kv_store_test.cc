// The in-memory etcd the cluster tests run on: its semantics must be
// etcd's, or the tests prove nothing.
#include "memory_kv_store.h"

#include <chrono>
#include <optional>

#include <gtest/gtest.h>

namespace spillway::testing {
namespace {

using broker::cluster::Compare;
using broker::cluster::TxnOp;
using broker::cluster::TxnResult;
using broker::cluster::WatchBatch;

class MemoryKvStoreTest : public ::testing::Test {
 protected:
  // The context stops when it runs out of work: restart it for the next.
  void run_one() {
    if (io_.stopped()) io_.restart();
    io_.run_one_for(std::chrono::milliseconds(5));
  }
  template <typename T>
  T wait(std::optional<T>& slot) {
    for (int i = 0; i < 1000 && !slot; ++i) run_one();
    EXPECT_TRUE(slot.has_value());
    return std::move(*slot);
  }
  Result<TxnResult> put_if_absent(const std::string& key, int64_t lease) {
    std::optional<Result<TxnResult>> r;
    store_.txn({{key, Compare::Target::kCreateRevision, Compare::Op::kEqual, 0, {}}},
               {{TxnOp::Kind::kPut, key, "v", lease, false}}, {},
               [&](Result<TxnResult> x) { r = std::move(x); });
    EXPECT_FALSE(r.has_value());  // never inline
    return wait(r);
  }

  asio::io_context io_;
  MemoryEtcd etcd_;
  MemoryKvStore store_{io_, etcd_};
};

TEST_F(MemoryKvStoreTest, RevisionsAndCreateIfAbsent) {
  EXPECT_EQ(etcd_.revision(), 1);
  auto a = put_if_absent("/k/a", 0);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->succeeded);
  EXPECT_EQ(a->revision, 2);
  auto again = put_if_absent("/k/a", 0);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->succeeded);
  EXPECT_EQ(again->revision, 2);  // no write, no new revision
  EXPECT_EQ(etcd_.get("/k/a")->create_revision, 2);
  etcd_.put("/k/a", "w");
  EXPECT_EQ(etcd_.get("/k/a")->mod_revision, 3);
  EXPECT_EQ(etcd_.get("/k/a")->version, 2);
}

TEST_F(MemoryKvStoreTest, LeaseExpiryDeletesItsKeysAndKeepAliveAnswersZero) {
  std::optional<Result<int64_t>> lease;
  store_.lease_grant(300, [&](Result<int64_t> x) { lease = std::move(x); });
  const int64_t id = *wait(lease);
  ASSERT_TRUE(put_if_absent("/k/l", id)->succeeded);
  EXPECT_EQ(etcd_.lease_of("/k/l"), id);
  std::optional<Result<int64_t>> ttl;
  store_.lease_keep_alive(id, [&](Result<int64_t> x) { ttl = std::move(x); });
  EXPECT_EQ(*wait(ttl), 1000);  // rounded up to whole seconds
  etcd_.expire_lease(id);
  EXPECT_EQ(etcd_.get("/k/l"), nullptr);
  ttl.reset();
  store_.lease_keep_alive(id, [&](Result<int64_t> x) { ttl = std::move(x); });
  EXPECT_EQ(*wait(ttl), 0);
  // A put on a lease that is gone fails as etcd's does.
  EXPECT_EQ(put_if_absent("/k/m", id).status().code(), ErrorCode::kCoordinationUnavailable);
}

TEST_F(MemoryKvStoreTest, WatchReplaysHistoryAndFailsBelowCompaction) {
  etcd_.put("/w/1", "a");  // rev 2
  etcd_.put("/w/2", "b");  // rev 3
  etcd_.put("/x", "c");    // rev 4
  etcd_.erase("/w/1");     // rev 5
  std::vector<int64_t> revs;
  auto h = store_.watch("/w/", true, 3, [&](Result<WatchBatch> b) {
    if (!b.ok()) return;  // ended below, with the others
    for (const auto& ev : b->events) revs.push_back(ev.kv.mod_revision);
  });
  for (int i = 0; i < 100 && revs.size() < 2; ++i) run_one();
  EXPECT_EQ(revs, (std::vector<int64_t>{3, 5}));
  etcd_.compact(5);
  std::optional<Status> err;
  auto h2 = store_.watch("/w/", true, 4, [&](Result<WatchBatch> b) { err = b.status(); });
  EXPECT_EQ(wait(err).code(), ErrorCode::kCompacted);
  // Cut off: the open watch ends, calls fail.
  std::optional<Status> ended;
  auto h3 = store_.watch("/w/", true, 0, [&](Result<WatchBatch> b) { ended = b.status(); });
  store_.set_reachable(false);
  EXPECT_EQ(wait(ended).code(), ErrorCode::kCoordinationUnavailable);
  EXPECT_EQ(put_if_absent("/w/3", 0).status().code(), ErrorCode::kCoordinationUnavailable);
}

}  // namespace
}  // namespace spillway::testing
