// ClusterNode.
#include "cluster_node.h"

#include <spdlog/spdlog.h>

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <future>

#include "cluster/etcd/etcd_endpoint.h"
#include "cluster/etcd/etcd_kv_store.h"
#include "cluster/etcd_cluster_member.h"
#include "cluster/reassignment.h"

namespace spillway::broker::cluster {

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// How long a create or delete waits for this broker's own snapshot.
constexpr int64_t kAdminWaitMs = 10'000;

}  // namespace

ClusterNode::ClusterNode(const BrokerConfig& config, TopicRegistry& topics, storage::FileSystem& fs,
                         CoreSet& cores)
    : config_(config), topics_(topics), fs_(fs), cores_(cores), work_(io_.get_executor()) {}

ClusterNode::~ClusterNode() {
  stop();
}

Status ClusterNode::start(const Addresses& addresses) {
  const std::vector<std::string> endpoints =
      etcd::split_endpoint_list(config_.cluster_etcd_endpoints);
  if (endpoints.empty()) {
    return Status(ErrorCode::kConfig, "cluster.etcd_endpoints: no endpoint given");
  }
  store_ = std::make_unique<etcd::EtcdKvStore>(io_, endpoints);
  MemberOptions options;
  options.cluster_name = config_.cluster_name;
  options.broker_id = static_cast<BrokerId>(config_.node_id);
  options.rack = config_.cluster_rack;
  options.native_address = addresses.native;
  options.kafka_address = addresses.kafka;
  options.lease_ttl_ms = config_.cluster_lease_ttl_ms;
  options.min_insync_replicas = static_cast<int32_t>(config_.cluster_min_insync_replicas);
  options.unclean_leader_election = config_.cluster_unclean_leader_election;
  replication::FetcherOptions fetching;
  fetching.broker_id = static_cast<BrokerId>(config_.node_id);
  fetching.max_wait_ms = static_cast<int32_t>(config_.cluster_replica_fetch_max_wait_ms);
  fetcher_ = std::make_unique<replication::ReplicaFetcher>(cores_.context(0), fetching);
  thread_ = std::thread([this] { io_.run(); });

  // A broker restarted right after a crash finds its old registration still
  // there until the old lease expires: it waits for that (two TTLs) rather
  // than fail, as a restarted Kafka broker waits for its old session.
  const int64_t held_until = now_ms() + 2 * config_.cluster_lease_ttl_ms + 1'000;
  for (;;) {
    Status st = start_member(options);
    if (st.ok() || st.code() != ErrorCode::kConfig ||
        st.message().find("held by another live broker") == std::string_view::npos ||
        now_ms() >= held_until) {
      return st;
    }
    spdlog::info("cluster: {}; waiting for its lease to expire", st.message());
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

Status ClusterNode::start_member(const MemberOptions& options) {
  // Built, started and (after a failure) destroyed on the cluster thread,
  // where its timers and callbacks run.
  auto ready = std::make_shared<std::promise<Status>>();
  std::future<Status> started = ready->get_future();
  asio::post(io_, [this, options, ready] {
    member_ = std::make_unique<EtcdClusterMember>(io_, *store_, options);
    manager_ = std::make_unique<replication::ReplicaManager>(config_, topics_, fs_, *member_,
                                                             *fetcher_, io_);
    member_->set_listener([this](SnapshotPtr snapshot) { on_snapshot(std::move(snapshot)); });
    member_->set_on_fenced([this] { manager_->on_fenced(); });
    member_->start([ready](Status st) { ready->set_value(std::move(st)); });
  });
  const auto wait = std::chrono::milliseconds(3 * config_.cluster_lease_ttl_ms + 5'000);
  Status result =
      started.wait_for(wait) == std::future_status::ready
          ? started.get()
          : Status(ErrorCode::kCoordinationUnavailable,
                   "etcd (" + config_.cluster_etcd_endpoints + ") did not answer in time");
  if (!result.ok()) {
    auto gone = std::make_shared<std::promise<void>>();
    std::future<void> destroyed = gone->get_future();
    asio::post(io_, [this, gone] {
      manager_.reset();
      member_.reset();
      gone->set_value();
    });
    destroyed.wait();
  }
  return result;
}

void ClusterNode::on_snapshot(SnapshotPtr snapshot) {
  throttle_.set_rate(static_cast<uint64_t>(reassignment_throttle_rate(*snapshot)));
  throttle_.set_ongoing(count_reassignments(*snapshot));
  fetcher_->set_broker_epoch(member_->broker_epoch());
  manager_->on_snapshot(snapshot);
  release_waiters(snapshot.get(), false);
}

void ClusterNode::release_waiters(const ClusterSnapshot* snapshot, bool expired_only) {
  const int64_t now = now_ms();
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    bool done = false;
    Status result;
    if (!expired_only && snapshot != nullptr && it->shown(*snapshot)) {
      done = true;
    } else if (now >= it->deadline_ms) {
      done = true;
      result = Status(ErrorCode::kTimeout, it->what + " but this broker has not seen it yet");
    }
    if (!done) {
      ++it;
      continue;
    }
    asio::post(it->executor, [fn = std::move(it->done), result = std::move(result)]() mutable {
      fn(std::move(result));
    });
    it = waiters_.erase(it);
  }
}

void ClusterNode::wait_for(Waiter waiter) {
  SnapshotPtr now = member_->snapshot();
  if (now && waiter.shown(*now)) {
    asio::post(waiter.executor, [fn = std::move(waiter.done)] { fn(Status::Ok()); });
    return;
  }
  waiters_.push_back(std::move(waiter));
  auto timer = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(kAdminWaitMs));
  timer->async_wait([this, timer](asio::error_code) { release_waiters(nullptr, true); });
}

void ClusterNode::create_topic(NewTopic topic, asio::any_io_executor executor,
                               std::function<void(Status)> done) {
  if (topic.replication_factor == -1) {
    topic.replication_factor = static_cast<int32_t>(config_.cluster_default_replication_factor);
  }
  asio::post(io_, [this, topic = std::move(topic), executor, done = std::move(done)]() mutable {
    std::string name = topic.name;
    member_->create_topic(std::move(topic), [this, name, executor,
                                             done = std::move(done)](Status st) mutable {
      if (!st.ok()) {
        asio::post(executor,
                   [done = std::move(done), st = std::move(st)]() mutable { done(std::move(st)); });
        return;
      }
      wait_for(Waiter{.shown = [name](const ClusterSnapshot& s) { return s.topics.contains(name); },
                      .what = "topic " + name + " was created",
                      .deadline_ms = now_ms() + kAdminWaitMs,
                      .executor = executor,
                      .done = std::move(done)});
    });
  });
}

void ClusterNode::delete_topic(std::string name, asio::any_io_executor executor,
                               std::function<void(Status)> done) {
  asio::post(io_, [this, name = std::move(name), executor, done = std::move(done)]() mutable {
    member_->delete_topic(name, [this, name, executor, done = std::move(done)](Status st) mutable {
      if (!st.ok()) {
        asio::post(executor,
                   [done = std::move(done), st = std::move(st)]() mutable { done(std::move(st)); });
        return;
      }
      wait_for(
          Waiter{.shown = [name](const ClusterSnapshot& s) { return !s.topics.contains(name); },
                 .what = "topic " + name + " was deleted",
                 .deadline_ms = now_ms() + kAdminWaitMs,
                 .executor = executor,
                 .done = std::move(done)});
    });
  });
}

void ClusterNode::read_group_offsets(std::string group, asio::any_io_executor executor,
                                     std::function<void(Result<StoredOffsets>)> done) {
  asio::post(io_, [this, group = std::move(group), executor, done = std::move(done)]() mutable {
    const std::string key = ClusterKeys(config_.cluster_name).group_offsets(group);
    store_->range(key, false, [executor, done = std::move(done)](Result<RangeResult> r) mutable {
      Result<StoredOffsets> out = Status(ErrorCode::kUnknown, "");
      if (!r.ok()) {
        out = r.status();
      } else if (r->kvs.empty()) {
        out = StoredOffsets{};
      } else if (Result<std::vector<GroupOffset>> o = decode_group_offsets(r->kvs[0].value);
                 !o.ok()) {
        out = o.status();
      } else {
        out = StoredOffsets{.offsets = std::move(*o), .mod_revision = r->kvs[0].mod_revision};
      }
      asio::post(executor, [done = std::move(done), out = std::move(out)]() mutable {
        done(std::move(out));
      });
    });
  });
}

void ClusterNode::write_group_offsets(std::string group, int64_t expected,
                                      std::vector<GroupOffset> offsets,
                                      asio::any_io_executor executor,
                                      std::function<void(Result<int64_t>)> done) {
  std::string value = encode_group_offsets(offsets);
  if (value.size() > kMaxValueBytes) {
    asio::post(executor, [done = std::move(done)] {
      done(Status(ErrorCode::kResourceExhausted, "the group's committed offsets exceed " +
                                                     std::to_string(kMaxValueBytes) +
                                                     " bytes as stored in etcd"));
    });
    return;
  }
  asio::post(io_, [this, group = std::move(group), expected, value = std::move(value), executor,
                   done = std::move(done)]() mutable {
    std::string key = ClusterKeys(config_.cluster_name).group_offsets(group);
    std::vector<Compare> cmp{
        {key, Compare::Target::kModRevision, Compare::Op::kEqual, expected, {}}};
    std::vector<TxnOp> put{{TxnOp::Kind::kPut, key, std::move(value), 0, false}};
    store_->txn(std::move(cmp), std::move(put), {},
                [executor, done = std::move(done)](Result<TxnResult> r) mutable {
                  Result<int64_t> out = !r.ok()        ? Result<int64_t>(r.status())
                                        : r->succeeded ? Result<int64_t>(r->revision)
                                                       : Result<int64_t>(int64_t{0});
                  asio::post(executor, [done = std::move(done), out = std::move(out)]() mutable {
                    done(std::move(out));
                  });
                });
  });
}

void ClusterNode::reassign_partitions(std::string topic, std::vector<ReassignOrder> orders,
                                      asio::any_io_executor executor,
                                      std::function<void(std::vector<Status>)> done) {
  asio::post(io_, [this, topic = std::move(topic), orders = std::move(orders), executor,
                   done = std::move(done)]() mutable {
    member_->reassign(
        topic, std::move(orders),
        [this, topic, executor, done = std::move(done)](ReassignOutcome outcome) mutable {
          if (outcome.revision == 0) {
            asio::post(executor,
                       [done = std::move(done), results = std::move(outcome.results)]() mutable {
                         done(std::move(results));
                       });
            return;
          }
          // Answered once this broker's snapshot holds the write; a timeout
          // replaces the results that were written.
          auto results = std::make_shared<std::vector<Status>>(std::move(outcome.results));
          wait_for(Waiter{.shown = [revision = outcome.revision](
                                       const ClusterSnapshot& s) { return s.revision >= revision; },
                          .what = "the reassignment of topic " + topic + " was recorded",
                          .deadline_ms = now_ms() + kAdminWaitMs,
                          .executor = executor,
                          .done =
                              [results, done = std::move(done)](Status st) mutable {
                                if (!st.ok()) {
                                  for (Status& r : *results) {
                                    if (r.ok()) r = st;
                                  }
                                }
                                done(std::move(*results));
                              }});
        });
  });
}

void ClusterNode::prepare_stop(std::function<void()> done) {
  if (!member_) {
    done();
    return;
  }
  spdlog::info("cluster: controlled shutdown: moving leadership to other brokers (up to {} ms)",
               config_.cluster_controlled_shutdown_timeout_ms);
  asio::post(io_, [this, done = std::move(done)]() mutable {
    member_->controlled_shutdown(config_.cluster_controlled_shutdown_timeout_ms,
                                 [done = std::move(done)](Status st) {
                                   if (st.ok()) {
                                     spdlog::info("cluster: controlled shutdown: leads nothing");
                                   } else {
                                     spdlog::warn("cluster: controlled shutdown: {}", st.message());
                                   }
                                   done();
                                 });
  });
}

void ClusterNode::stop_fetching() {
  if (fetcher_) fetcher_->stop();
}

void ClusterNode::stop() {
  if (stopped_.exchange(true) || !thread_.joinable()) return;
  if (!member_) {
    work_.reset();
    io_.stop();
    thread_.join();
    return;
  }
  auto revoked = std::make_shared<std::promise<void>>();
  std::future<void> finished = revoked->get_future();
  asio::post(io_, [this, revoked] { member_->stop([revoked] { revoked->set_value(); }); });
  // The lease expires on its own if etcd does not answer in time.
  finished.wait_for(std::chrono::seconds(5));
  work_.reset();
  io_.stop();
  thread_.join();
}

}  // namespace spillway::broker::cluster
