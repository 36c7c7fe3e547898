// EtcdKvStore against real etcd members started by the test
// (tests/support/etcd_cluster.h), and against a fake HTTP server on
// 127.0.0.1 that answers what etcd never would.
#include "cluster/etcd/etcd_kv_store.h"

#include <gtest/gtest.h>

#include <asio/buffers_iterator.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/read_until.hpp>
#include <asio/streambuf.hpp>
#include <asio/write.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "etcd_cluster.h"

namespace spillway::broker::cluster::etcd {
namespace {

using spillway::testing::EtcdCluster;

// Generous: only a store that never answers reaches it.
constexpr auto kWaitLimit = std::chrono::seconds(60);

// Runs `io` until `done()` holds. False when nothing happened for too long.
template <typename Pred>
bool run_until(asio::io_context& io, Pred done) {
  io.restart();
  auto work = asio::make_work_guard(io);
  auto limit = std::chrono::steady_clock::now() + kWaitLimit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > limit) return false;
    io.run_one_for(std::chrono::milliseconds(100));
  }
  return true;
}

// Starts an asynchronous call and runs `io` until its callback ran; checks
// that the callback did not run inside the call.
template <typename T, typename Start>
Result<T> await(asio::io_context& io, Start start) {
  std::optional<Result<T>> out;
  start([&out](Result<T> r) { out.emplace(std::move(r)); });
  EXPECT_FALSE(out.has_value()) << "callback ran inline";
  if (!run_until(io, [&] { return out.has_value(); })) {
    return Status(ErrorCode::kTimeout, "no callback");
  }
  return std::move(*out);
}

TxnOp put(std::string key, std::string value, int64_t lease = 0) {
  TxnOp op;
  op.kind = TxnOp::Kind::kPut;
  op.key = std::move(key);
  op.value = std::move(value);
  op.lease = lease;
  return op;
}

TxnOp del(std::string key, bool prefix = false) {
  TxnOp op;
  op.kind = TxnOp::Kind::kDelete;
  op.key = std::move(key);
  op.prefix = prefix;
  return op;
}

TxnOp get(std::string key, bool prefix = false) {
  TxnOp op;
  op.kind = TxnOp::Kind::kRange;
  op.key = std::move(key);
  op.prefix = prefix;
  return op;
}

Compare compare(std::string key, Compare::Target target, Compare::Op op, int64_t number,
                std::string value = {}) {
  Compare c;
  c.key = std::move(key);
  c.target = target;
  c.op = op;
  c.number = number;
  c.value = std::move(value);
  return c;
}

class EtcdKvStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = EtcdCluster::start(1);
    ASSERT_TRUE(started.ok()) << started.status().to_string();
    cluster_ = std::move(*started).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    store_ = std::make_unique<EtcdKvStore>(io_, cluster_->endpoint_list());
    prefix_ =
        std::string("/t/") + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "/";
  }

  Result<TxnResult> txn(std::vector<Compare> compares, std::vector<TxnOp> success,
                        std::vector<TxnOp> failure = {}) {
    return await<TxnResult>(io_, [&](auto done) {
      store_->txn(std::move(compares), std::move(success), std::move(failure), std::move(done));
    });
  }
  Result<RangeResult> range(std::string key, bool prefix = false) {
    return await<RangeResult>(io_, [&](auto done) { store_->range(key, prefix, std::move(done)); });
  }

  static EtcdCluster* cluster_;
  asio::io_context io_;
  std::unique_ptr<EtcdKvStore> store_;
  std::string prefix_;
};

EtcdCluster* EtcdKvStoreTest::cluster_ = nullptr;

TEST_F(EtcdKvStoreTest, RangeSinglePrefixAndAbsent) {
  auto written = txn({}, {put(prefix_ + "a", "1"), put(prefix_ + "b", std::string("\0\xff", 2)),
                          put(prefix_ + "c/x", "3"), put(prefix_ + "d", "")});
  ASSERT_TRUE(written.ok()) << written.status().to_string();
  EXPECT_TRUE(written->succeeded);

  auto one = range(prefix_ + "b");
  ASSERT_TRUE(one.ok()) << one.status().to_string();
  ASSERT_EQ(one->kvs.size(), 1u);
  EXPECT_EQ(one->kvs[0].key, prefix_ + "b");
  EXPECT_EQ(one->kvs[0].value, std::string("\0\xff", 2));
  EXPECT_EQ(one->kvs[0].create_revision, written->revision);
  EXPECT_EQ(one->kvs[0].mod_revision, written->revision);
  EXPECT_EQ(one->kvs[0].version, 1);
  EXPECT_GE(one->revision, written->revision);

  auto all = range(prefix_, true);
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  ASSERT_EQ(all->kvs.size(), 4u);
  EXPECT_EQ(all->kvs[0].key, prefix_ + "a");
  EXPECT_EQ(all->kvs[2].key, prefix_ + "c/x");
  EXPECT_EQ(all->kvs[3].value, "");

  auto absent = range(prefix_ + "zz");
  ASSERT_TRUE(absent.ok()) << absent.status().to_string();
  EXPECT_TRUE(absent->kvs.empty());
  EXPECT_GT(absent->revision, 0);
}

TEST_F(EtcdKvStoreTest, TxnComparesChooseTheBranch) {
  std::string key = prefix_ + "owner";
  using T = Compare::Target;
  using O = Compare::Op;
  // Create if absent: only the first succeeds.
  auto first = txn({compare(key, T::kCreateRevision, O::kEqual, 0)}, {put(key, "me")}, {get(key)});
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_TRUE(first->succeeded);
  EXPECT_TRUE(first->ranges.empty());
  auto second =
      txn({compare(key, T::kCreateRevision, O::kEqual, 0)}, {put(key, "you")}, {get(key)});
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  EXPECT_FALSE(second->succeeded);
  ASSERT_EQ(second->ranges.size(), 1u);
  ASSERT_EQ(second->ranges[0].size(), 1u);
  EXPECT_EQ(second->ranges[0][0].value, "me");
  int64_t mod = second->ranges[0][0].mod_revision;

  // mod_revision: a stale one fails, the current one holds.
  auto stale = txn({compare(key, T::kModRevision, O::kEqual, mod - 1)}, {put(key, "x")});
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->succeeded);
  auto current = txn({compare(key, T::kModRevision, O::kEqual, mod)}, {put(key, "v2")}, {});
  ASSERT_TRUE(current.ok());
  EXPECT_TRUE(current->succeeded);

  // value, version, and the other operators.
  auto by_value =
      txn({compare(key, T::kValue, O::kEqual, 0, "v2"), compare(key, T::kVersion, O::kEqual, 2),
           compare(key, T::kModRevision, O::kGreater, mod),
           compare(key, T::kCreateRevision, O::kLess, current->revision + 1),
           compare(key, T::kValue, O::kNotEqual, 0, "me")},
          {get(key), del(key)}, {});
  ASSERT_TRUE(by_value.ok()) << by_value.status().to_string();
  EXPECT_TRUE(by_value->succeeded);
  ASSERT_EQ(by_value->ranges.size(), 1u);
  ASSERT_EQ(by_value->ranges[0].size(), 1u);
  EXPECT_EQ(by_value->ranges[0][0].version, 2);
  auto gone = range(key);
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(gone->kvs.empty());
}

TEST_F(EtcdKvStoreTest, LeaseGrantKeepAliveRevoke) {
  auto lease =
      await<int64_t>(io_, [&](auto done) { store_->lease_grant(10'000, std::move(done)); });
  ASSERT_TRUE(lease.ok()) << lease.status().to_string();
  ASSERT_NE(*lease, 0);
  ASSERT_TRUE(txn({}, {put(prefix_ + "k", "v", *lease)}).ok());
  auto kv = range(prefix_ + "k");
  ASSERT_TRUE(kv.ok());
  ASSERT_EQ(kv->kvs.size(), 1u);
  EXPECT_EQ(kv->kvs[0].lease, *lease);

  for (int i = 0; i < 3; ++i) {
    auto ttl =
        await<int64_t>(io_, [&](auto done) { store_->lease_keep_alive(*lease, std::move(done)); });
    ASSERT_TRUE(ttl.ok()) << ttl.status().to_string();
    EXPECT_GT(*ttl, 0);
    EXPECT_LE(*ttl, 10'000);
  }
  auto revoked =
      await<bool>(io_, [&](auto done) { store_->lease_revoke(*lease, std::move(done)); });
  ASSERT_TRUE(revoked.ok()) << revoked.status().to_string();
  EXPECT_TRUE(*revoked);
  auto after = range(prefix_ + "k");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->kvs.empty());

  // Gone: keep-alive says 0, a second revoke says false.
  auto ttl =
      await<int64_t>(io_, [&](auto done) { store_->lease_keep_alive(*lease, std::move(done)); });
  ASSERT_TRUE(ttl.ok()) << ttl.status().to_string();
  EXPECT_EQ(*ttl, 0);
  auto again = await<bool>(io_, [&](auto done) { store_->lease_revoke(*lease, std::move(done)); });
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_FALSE(*again);
}

TEST_F(EtcdKvStoreTest, LeaseLeftToExpireTakesItsKeys) {
  auto lease = await<int64_t>(io_, [&](auto done) { store_->lease_grant(1, std::move(done)); });
  ASSERT_TRUE(lease.ok()) << lease.status().to_string();
  ASSERT_TRUE(txn({}, {put(prefix_ + "ephemeral", "v", *lease)}).ok());
  // Poll until etcd expires it (no assumption on how long that takes).
  bool gone = false;
  auto limit = std::chrono::steady_clock::now() + kWaitLimit;
  while (!gone && std::chrono::steady_clock::now() < limit) {
    auto r = range(prefix_ + "ephemeral");
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    gone = r->kvs.empty();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone);
  auto ttl =
      await<int64_t>(io_, [&](auto done) { store_->lease_keep_alive(*lease, std::move(done)); });
  ASSERT_TRUE(ttl.ok()) << ttl.status().to_string();
  EXPECT_EQ(*ttl, 0);
}

TEST_F(EtcdKvStoreTest, WatchFromRevisionDeliversChangesInOrder) {
  // Changes made before the watch starts are delivered too.
  auto first = txn({}, {put(prefix_ + "a", "1")});
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(txn({}, {put(prefix_ + "b", "2")}).ok());
  ASSERT_TRUE(txn({}, {put("/t/unrelated", "x")}).ok());

  std::vector<WatchEvent> events;
  std::optional<Status> ended;
  int64_t last_revision = 0;
  auto handle = store_->watch(prefix_, true, first->revision, [&](Result<WatchBatch> batch) {
    if (!batch) {
      ended = batch.status();
      return;
    }
    EXPECT_GE(batch->revision, last_revision);
    last_revision = batch->revision;
    for (auto& e : batch->events) events.push_back(e);
  });
  ASSERT_TRUE(txn({}, {del(prefix_ + "a")}).ok());
  ASSERT_TRUE(txn({}, {put(prefix_ + "b", "3")}).ok());
  ASSERT_TRUE(run_until(io_, [&] { return events.size() >= 4 || ended.has_value(); }));
  ASSERT_FALSE(ended.has_value()) << ended->to_string();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].type, WatchEvent::Type::kPut);
  EXPECT_EQ(events[0].kv.key, prefix_ + "a");
  EXPECT_EQ(events[0].kv.value, "1");
  EXPECT_EQ(events[0].kv.mod_revision, first->revision);
  EXPECT_EQ(events[1].kv.key, prefix_ + "b");
  EXPECT_EQ(events[2].type, WatchEvent::Type::kDelete);
  EXPECT_EQ(events[2].kv.key, prefix_ + "a");
  EXPECT_EQ(events[3].type, WatchEvent::Type::kPut);
  EXPECT_EQ(events[3].kv.value, "3");
  EXPECT_EQ(events[3].kv.version, 2);
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_GT(events[i].kv.mod_revision, events[i - 1].kv.mod_revision);
  }
  // Destroying the handle ends the watch: no callback after.
  handle.reset();
  size_t seen = events.size();
  ASSERT_TRUE(txn({}, {put(prefix_ + "c", "4")}).ok());
  EXPECT_EQ(events.size(), seen);
  EXPECT_FALSE(ended.has_value());
}

TEST_F(EtcdKvStoreTest, WatchFromCompactedRevisionFails) {
  auto first = txn({}, {put(prefix_ + "a", "1")});
  ASSERT_TRUE(first.ok());
  auto second = txn({}, {put(prefix_ + "a", "2")});
  ASSERT_TRUE(second.ok());
  auto compacted =
      await<int64_t>(io_, [&](auto done) { store_->compact(second->revision, std::move(done)); });
  ASSERT_TRUE(compacted.ok()) << compacted.status().to_string();

  std::optional<Status> ended;
  int batches = 0;
  auto handle = store_->watch(prefix_, true, first->revision, [&](Result<WatchBatch> batch) {
    if (!batch) {
      ended = batch.status();
    } else {
      ++batches;
    }
  });
  ASSERT_TRUE(run_until(io_, [&] { return ended.has_value(); }));
  EXPECT_EQ(ended->code(), ErrorCode::kCompacted) << ended->to_string();
  EXPECT_EQ(batches, 0);
}

TEST_F(EtcdKvStoreTest, MalformedEndpointFailsEveryCall) {
  EtcdKvStore store(io_, {"etcd.example:2379"});
  auto r = await<RangeResult>(io_, [&](auto done) { store.range("/x", false, std::move(done)); });
  EXPECT_EQ(r.status().code(), ErrorCode::kCoordinationUnavailable);
}

// Three members: the store talks to a follower; that member is killed; the
// next request goes through another endpoint.
TEST(EtcdKvStoreFailover, KilledMemberNextRequestUsesAnotherEndpoint) {
  auto started = EtcdCluster::start(3);
  ASSERT_TRUE(started.ok()) << started.status().to_string();
  auto& cluster = **started;
  auto leader = cluster.leader_index();
  ASSERT_TRUE(leader.ok()) << leader.status().to_string();
  int follower = (*leader + 1) % 3;
  int other = (*leader + 2) % 3;
  // The follower first, then the leader: the retry after the kill lands on
  // a member that serves without an election.
  std::vector<std::string> endpoints = {cluster.endpoint(follower), cluster.endpoint(*leader),
                                        cluster.endpoint(other)};
  asio::io_context io;
  EtcdKvStore store(io, endpoints);
  auto before = await<TxnResult>(
      io, [&](auto done) { store.txn({}, {put("/failover/k", "1")}, {}, std::move(done)); });
  ASSERT_TRUE(before.ok()) << before.status().to_string();
  EXPECT_EQ(store.current_endpoint(), cluster.endpoint(follower));

  // A watch on the same member ends when the connection drops.
  std::optional<Status> watch_end;
  int batches = 0;
  auto watch = store.watch("/failover/", true, before->revision + 1, [&](Result<WatchBatch> batch) {
    if (!batch) {
      watch_end = batch.status();
    } else {
      ++batches;
    }
  });
  // Once an event arrived, the watch is established on the follower.
  ASSERT_TRUE(await<TxnResult>(io, [&](auto done) {
                store.txn({}, {put("/failover/k2", "2")}, {}, std::move(done));
              }).ok());
  ASSERT_TRUE(run_until(io, [&] { return batches > 0 || watch_end.has_value(); }));
  ASSERT_FALSE(watch_end.has_value()) << watch_end->to_string();

  cluster.kill_member(follower);
  ASSERT_TRUE(run_until(io, [&] { return watch_end.has_value(); }));
  EXPECT_EQ(watch_end->code(), ErrorCode::kCoordinationUnavailable) << watch_end->to_string();
  auto after = await<RangeResult>(
      io, [&](auto done) { store.range("/failover/k", false, std::move(done)); });
  ASSERT_TRUE(after.ok()) << after.status().to_string();
  ASSERT_EQ(after->kvs.size(), 1u);
  EXPECT_EQ(after->kvs[0].value, "1");
  EXPECT_NE(store.current_endpoint(), cluster.endpoint(follower));
  // The endpoint that worked is kept.
  auto again = await<RangeResult>(
      io, [&](auto done) { store.range("/failover/k", false, std::move(done)); });
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(store.current_endpoint(), cluster.endpoint(*leader));
}

// A member that hangs (SIGSTOP) answers nothing: the request moves to the
// next endpoint within its deadline. Then the harness's stop and restart.
TEST(EtcdKvStoreFailover, PausedMemberNextRequestUsesAnotherEndpoint) {
  auto started = EtcdCluster::start(3);
  ASSERT_TRUE(started.ok()) << started.status().to_string();
  auto& cluster = **started;
  auto leader = cluster.leader_index();
  ASSERT_TRUE(leader.ok()) << leader.status().to_string();
  int follower = (*leader + 1) % 3;
  asio::io_context io;
  EtcdKvStore store(io, {cluster.endpoint(follower), cluster.endpoint(*leader)});
  auto before = await<TxnResult>(
      io, [&](auto done) { store.txn({}, {put("/paused/k", "1")}, {}, std::move(done)); });
  ASSERT_TRUE(before.ok()) << before.status().to_string();

  cluster.pause_member(follower);
  auto after =
      await<RangeResult>(io, [&](auto done) { store.range("/paused/k", false, std::move(done)); });
  ASSERT_TRUE(after.ok()) << after.status().to_string();
  ASSERT_EQ(after->kvs.size(), 1u);
  EXPECT_EQ(store.current_endpoint(), cluster.endpoint(*leader));
  cluster.resume_member(follower);

  // A clean stop and a restart with the same data directory.
  cluster.stop_member(follower);
  EXPECT_FALSE(cluster.running(follower));
  Status restarted = cluster.restart_member(follower);
  ASSERT_TRUE(restarted.ok()) << restarted.to_string();
  EXPECT_TRUE(cluster.running(follower));
  auto via_restarted = cluster.post(follower, "/v3/kv/range", R"({"key":"L3BhdXNlZC9r"})");
  ASSERT_TRUE(via_restarted.ok()) << via_restarted.status().to_string();
  EXPECT_NE(via_restarted->find("\"value\":\"MQ==\""), std::string::npos) << *via_restarted;
}

// A fake HTTP server on 127.0.0.1: answers each request with `response`
// (then closes when `close_after`), or never answers when it is empty.
class FakeHttpServer {
 public:
  FakeHttpServer(asio::io_context& io, std::string response, bool close_after = true)
      : acceptor_(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        response_(std::move(response)),
        close_after_(close_after) {
    accept();
  }
  std::string endpoint() const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }
  int requests() const { return requests_; }

 private:
  struct Conn {
    explicit Conn(asio::ip::tcp::socket s) : socket(std::move(s)) {}
    asio::ip::tcp::socket socket;
    asio::streambuf in;
  };
  void accept() {
    acceptor_.async_accept([this](const std::error_code& ec, asio::ip::tcp::socket socket) {
      if (ec) return;
      auto conn = std::make_shared<Conn>(std::move(socket));
      conns_.push_back(conn);
      serve(conn);
      accept();
    });
  }
  // One request (headers, then a Content-Length body), one answer, and the
  // next request on the same connection unless `close_after`.
  void serve(std::shared_ptr<Conn> conn) {
    asio::async_read_until(
        conn->socket, conn->in, "\r\n\r\n",
        [this, conn](const std::error_code& ec, size_t header_bytes) {
          if (ec) return;
          std::string head(
              asio::buffers_begin(conn->in.data()),
              asio::buffers_begin(conn->in.data()) + static_cast<std::ptrdiff_t>(header_bytes));
          conn->in.consume(header_bytes);
          size_t length = 0;
          size_t at = head.find("Content-Length: ");
          if (at != std::string::npos) length = std::stoul(head.substr(at + 16));
          size_t have = std::min(length, conn->in.size());
          conn->in.consume(have);
          auto answer = [this, conn](const std::error_code& ec, size_t) {
            if (ec) return;
            ++requests_;
            if (response_.empty()) return;  // never answers
            asio::async_write(conn->socket, asio::buffer(response_),
                              [this, conn](const std::error_code& ec, size_t) {
                                if (ec) return;
                                if (close_after_) {
                                  conn->socket.close();
                                } else {
                                  serve(conn);
                                }
                              });
          };
          asio::async_read(conn->socket, conn->in, asio::transfer_exactly(length - have), answer);
        });
  }
  asio::ip::tcp::acceptor acceptor_;
  std::string response_;
  bool close_after_;
  int requests_ = 0;
  std::vector<std::shared_ptr<Conn>> conns_;
};

Status range_status(asio::io_context& io, const std::vector<std::string>& endpoints,
                    EtcdOptions options = {}) {
  EtcdKvStore store(io, endpoints, options);
  auto r = await<RangeResult>(io, [&](auto done) { store.range("/x", false, std::move(done)); });
  return r.status();
}

TEST(EtcdKvStoreProtocol, RefusesOversizedAndMalformedResponses) {
  asio::io_context io;
  const std::string responses[] = {
      "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n{}",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n{}",
      "HTTP/1.1 200 OK\r\n" + std::string(100'000, 'h'),
      "garbage\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nnot json!",
      "HTTP/1.1 200 OK\r\nContent-Length: 23\r\n\r\n{\"header\":{\"revision\":1",
      "HTTP/1.1 200 OK\r\nContent-Length: "
      "44\r\n\r\n{\"header\":{\"revision\":\"1\"},\"kvs\":[{\"key\":5}]}",
      "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
      "HTTP/1.1 400 Bad Request\r\nContent-Length: "
      "43\r\n\r\n{\"error\":\"bad\",\"code\":3,\"message\":\"bad\"}xx",
  };
  for (const std::string& response : responses) {
    FakeHttpServer server(io, response);
    Status st = range_status(io, {server.endpoint()});
    EXPECT_EQ(st.code(), ErrorCode::kCoordinationUnavailable) << response.substr(0, 80);
    EXPECT_FALSE(st.message().empty());
  }
}

TEST(EtcdKvStoreProtocol, DeadlineWhenNoAnswer) {
  asio::io_context io;
  FakeHttpServer silent(io, "");
  EtcdOptions options;
  options.request_timeout = std::chrono::milliseconds(300);
  Status st = range_status(io, {silent.endpoint()}, options);
  EXPECT_EQ(st.code(), ErrorCode::kCoordinationUnavailable);
  EXPECT_NE(st.message().find("no answer within"), std::string_view::npos) << st.to_string();
}

TEST(EtcdKvStoreProtocol, ServerErrorRetriedOnNextEndpoint) {
  asio::io_context io;
  FakeHttpServer failing(io, "HTTP/1.1 503 Unavailable\r\nContent-Length: 2\r\n\r\n{}");
  const std::string ok_body =
      R"({"header":{"revision":"7"},"kvs":[{"key":"L3g=","value":"dg==","mod_revision":"7"}]})";
  FakeHttpServer working(
      io,
      "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(ok_body.size()) + "\r\n\r\n" + ok_body,
      /*close_after=*/false);
  EtcdKvStore store(io, {failing.endpoint(), working.endpoint()});
  auto r = await<RangeResult>(io, [&](auto done) { store.range("/x", false, std::move(done)); });
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->revision, 7);
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(r->kvs[0].key, "/x");
  EXPECT_EQ(r->kvs[0].value, "v");
  EXPECT_EQ(failing.requests(), 1);
  EXPECT_EQ(store.current_endpoint(), working.endpoint());
  // Kept, on the same keep-alive connection.
  auto again =
      await<RangeResult>(io, [&](auto done) { store.range("/x", false, std::move(done)); });
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(failing.requests(), 1);
  EXPECT_EQ(working.requests(), 2);
}

TEST(EtcdKvStoreProtocol, WatchMessageOverTheLimitEndsTheWatch) {
  asio::io_context io;
  std::string message = R"({"result":{"header":{"revision":"1"},"created":true}})";
  std::string big(4096, ' ');
  std::string body = message + "\n" + "{\"result\":" + big;
  char size_hex[32];
  std::snprintf(size_hex, sizeof(size_hex), "%zx", body.size());
  FakeHttpServer server(io,
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
                            std::string(size_hex) + "\r\n" + body + "\r\n",
                        /*close_after=*/false);
  EtcdOptions options;
  options.max_stream_message_bytes = 1024;
  EtcdKvStore store(io, {server.endpoint()}, options);
  std::optional<Status> ended;
  int batches = 0;
  auto handle = store.watch("/x", true, 1, [&](Result<WatchBatch> batch) {
    if (!batch) {
      ended = batch.status();
    } else {
      ++batches;
    }
  });
  ASSERT_TRUE(run_until(io, [&] { return ended.has_value(); }));
  EXPECT_EQ(ended->code(), ErrorCode::kCoordinationUnavailable);
  EXPECT_NE(ended->message().find("longer than"), std::string_view::npos) << ended->to_string();
  EXPECT_EQ(batches, 0);
}

}  // namespace
}  // namespace spillway::broker::cluster::etcd
