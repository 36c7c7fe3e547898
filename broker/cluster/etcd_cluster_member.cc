#include "cluster/etcd_cluster_member.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "asio/post.hpp"
#include "cluster/reassignment.h"
#include "cluster/replica_assignment.h"
#include "core/topic_config.h"

namespace spillway::broker::cluster {

namespace {

// etcd's default --max-txn-ops: a topic with more partitions is created
// key by key by the controller (decide() creates missing partition keys).
constexpr size_t kMaxTxnOps = 128;
constexpr auto kRetryDelay = std::chrono::milliseconds(200);
// Writes of a reassign request that lose a race with another write of the
// topic key (the controller's steps) before it gives up.
constexpr int kReassignAttempts = 10;

bool contains(const std::vector<BrokerId>& v, BrokerId b) {
  return std::find(v.begin(), v.end(), b) != v.end();
}

Status invalid(std::string m) {
  return Status(ErrorCode::kInvalidArgument, std::move(m));
}

// Runs `f(args...)` only while the member that made it still exists.
template <typename F>
auto guard(const std::shared_ptr<EtcdClusterMember*>& self, F f) {
  return [w = std::weak_ptr<EtcdClusterMember*>(self), f = std::move(f)](auto&&... args) mutable {
    if (w.lock()) f(std::forward<decltype(args)>(args)...);
  };
}

}  // namespace

EtcdClusterMember::EtcdClusterMember(asio::io_context& io, KvStore& store, MemberOptions options)
    : io_(io),
      store_(store),
      options_(std::move(options)),
      keys_(options_.cluster_name),
      builder_(keys_),
      self_(std::make_shared<EtcdClusterMember*>(this)),
      snapshot_(std::make_shared<ClusterSnapshot>()),
      keep_alive_timer_(io),
      retry_timer_(io),
      relist_timer_(io),
      shutdown_timer_(io) {}

EtcdClusterMember::~EtcdClusterMember() {
  self_.reset();
}

void EtcdClusterMember::set_listener(std::function<void(SnapshotPtr)> on_snapshot) {
  on_snapshot_ = std::move(on_snapshot);
}

void EtcdClusterMember::set_on_fenced(std::function<void()> on_fenced) {
  on_fenced_ = std::move(on_fenced);
}

SnapshotPtr EtcdClusterMember::snapshot() const {
  std::lock_guard lock(snapshot_mu_);
  return snapshot_;
}

std::string EtcdClusterMember::my_broker_value(bool shutting_down) const {
  BrokerInfo b;
  b.native_address = options_.native_address;
  b.kafka_address = options_.kafka_address;
  b.rack = options_.rack;
  b.shutting_down = shutting_down;
  return encode_broker(b);
}

// --- registration and lease ---

void EtcdClusterMember::start(std::function<void(Status)> ready) {
  started_ = true;
  register_broker(guard(self_, [this, ready = std::move(ready)](Status st) mutable {
    if (!st.ok()) return ready(std::move(st));
    ready_ = std::move(ready);
    list();
    keep_alive_tick();
  }));
}

void EtcdClusterMember::register_broker(std::function<void(Status)> done) {
  registering_ = true;
  store_.lease_grant(
      options_.lease_ttl_ms, guard(self_, [this, done](Result<int64_t> lease) {
        if (!lease.ok()) {
          registering_ = false;
          return done(lease.status());
        }
        const int64_t id = *lease;
        const std::string key = keys_.broker(options_.broker_id);
        std::vector<Compare> cmp{
            {key, Compare::Target::kCreateRevision, Compare::Op::kEqual, 0, {}}};
        std::vector<TxnOp> put{
            {TxnOp::Kind::kPut, key, my_broker_value(shutting_down_), id, false}};
        std::vector<TxnOp> get{{TxnOp::Kind::kRange, key, {}, 0, false}};
        store_.txn(std::move(cmp), std::move(put), std::move(get),
                   guard(self_, [this, done, id, key](const Result<TxnResult>& r) {
                     registering_ = false;
                     if (stopped_ || !r.ok() || !r->succeeded) {
                       if (stopped_ && r.ok() && r->succeeded) {
                         store_.lease_revoke(id, [](Result<bool>) {});
                         return done(Status(ErrorCode::kShuttingDown, "stopped while registering"));
                       }
                       store_.lease_revoke(id, [](Result<bool>) {});
                       if (!r.ok()) return done(r.status());
                       std::string holder;
                       if (!r->ranges.empty() && !r->ranges[0].empty()) {
                         holder = " (registered at revision " +
                                  std::to_string(r->ranges[0][0].create_revision) + ", lease " +
                                  std::to_string(r->ranges[0][0].lease) + ")";
                       }
                       return done(Status(ErrorCode::kConfig,
                                          "broker id " + std::to_string(options_.broker_id) +
                                              " is held by another live broker: " + key + holder));
                     }
                     lease_ = id;
                     last_renewal_ = Clock::now();
                     broker_epoch_.store(r->revision);
                     spdlog::info("cluster: broker {} registered, epoch {} (lease {:x})",
                                  options_.broker_id, r->revision, id);
                     done(Status::Ok());
                   }));
      }));
}

void EtcdClusterMember::keep_alive_tick() {
  if (stopped_) return;
  if (lease_ == 0 && !registering_) {
    // Fenced: come back with a new lease (a new broker epoch) when etcd
    // answers; the old key must have gone with the old lease first.
    register_broker(guard(self_, [this](Status st) {
      if (!st.ok()) {
        spdlog::warn("cluster: registering again failed: {}", st.to_string());
        return;
      }
      list();
    }));
  } else if (lease_ != 0 &&
             Clock::now() - last_renewal_ > std::chrono::milliseconds(options_.lease_ttl_ms)) {
    // No renewal answered for a whole TTL: etcd has let the lease go (or
    // will before any answer can come), whatever the request in flight
    // says later. Checked on every tick, not only when a renewal fails:
    // a renewal to an unreachable etcd can wait out its whole deadline.
    fence("no lease renewal for a whole TTL");
  } else if (lease_ != 0) {
    const int64_t lease = lease_;
    // etcd restarts the TTL when it receives the renewal, which is after
    // this send: counting from the send keeps our view on the safe side.
    const Clock::time_point sent = Clock::now();
    store_.lease_keep_alive(lease, guard(self_, [this, lease, sent](Result<int64_t> ttl) {
                              if (lease != lease_) return;
                              if (ttl.ok() && *ttl > 0) {
                                last_renewal_ = sent;
                              } else if (ttl.ok()) {
                                fence("lease expired");
                              } else if (Clock::now() - last_renewal_ >
                                         std::chrono::milliseconds(options_.lease_ttl_ms)) {
                                fence("no lease renewal for a whole TTL");
                              }
                            }));
    campaign();
  }
  keep_alive_timer_.expires_after(
      std::chrono::milliseconds(std::max<int64_t>(1, options_.lease_ttl_ms / 3)));
  keep_alive_timer_.async_wait(guard(self_, [this](std::error_code ec) {
    if (!ec) keep_alive_tick();
  }));
}

void EtcdClusterMember::fence(const char* why) {
  spdlog::warn("cluster: broker {} fenced ({}): stop leading, register again", options_.broker_id,
               why);
  // Best effort: if etcd still holds the old lease, our old key would
  // block the new registration until it expires.
  store_.lease_revoke(lease_, [](Result<bool>) {});
  lease_ = 0;
  broker_epoch_.store(0);
  campaign_epoch_ = 0;
  if (on_fenced_) on_fenced_();
  // This broker's registration is gone as far as the cluster goes (or soon
  // will be), and the leaders the snapshot gives it are no longer its own:
  // the cluster has moved them, or will. The snapshot loses this broker, so
  // Kafka Metadata answered from it names no leader for them instead of
  // sending clients back here (a broker cut off from etcd kept producers
  // on it for minutes before this, since its stale Metadata said it led).
  SnapshotPtr without_self;
  {
    std::lock_guard lock(snapshot_mu_);
    auto copy = std::make_shared<ClusterSnapshot>(*snapshot_);
    copy->brokers.erase(options_.broker_id);
    if (copy->controller == options_.broker_id) copy->controller = kNoBroker;
    snapshot_ = copy;
    without_self = std::move(copy);
  }
  if (on_snapshot_) on_snapshot_(without_self);
}

// --- the watch and snapshots ---

void EtcdClusterMember::list() {
  if (listing_ || stopped_) return;
  listing_ = true;
  watch_.reset();
  ++watch_generation_;
  store_.range(
      keys_.prefix(), true, guard(self_, [this](Result<RangeResult> r) {
        listing_ = false;
        if (stopped_) return;
        if (!r.ok()) {
          spdlog::warn("cluster: listing {} failed: {}", keys_.prefix(), r.status().to_string());
          relist_timer_.expires_after(kRetryDelay);
          relist_timer_.async_wait(guard(self_, [this](std::error_code ec) {
            if (!ec) list();
          }));
          return;
        }
        publish(builder_.from_range(*r));
        const uint64_t gen = ++watch_generation_;
        watch_ = store_.watch(
            keys_.prefix(), true, r->revision + 1,
            guard(self_, [this, gen](Result<WatchBatch> b) { on_watch(gen, std::move(b)); }));
      }));
}

void EtcdClusterMember::on_watch(uint64_t generation, Result<WatchBatch> batch) {
  if (generation != watch_generation_ || stopped_) return;
  if (!batch.ok()) {
    spdlog::warn("cluster: watch ended ({}): listing again", batch.status().to_string());
    watch_.reset();
    ++watch_generation_;
    if (batch.status().code() == ErrorCode::kCompacted) return list();
    relist_timer_.expires_after(kRetryDelay);
    relist_timer_.async_wait(guard(self_, [this](std::error_code ec) {
      if (!ec) list();
    }));
    return;
  }
  publish(builder_.apply(*snapshot(), *batch));
}

void EtcdClusterMember::publish(SnapshotPtr next) {
  {
    std::lock_guard lock(snapshot_mu_);
    // A listing answered after newer events must not take the state back.
    if (next->revision < snapshot_->revision) return;
    snapshot_ = next;
  }
  if (on_snapshot_) on_snapshot_(next);
  if (ready_) std::exchange(ready_, nullptr)(Status::Ok());
  campaign();
  run_controller();
  check_shutdown_done();
}

// --- the controller ---

void EtcdClusterMember::campaign() {
  SnapshotPtr s = snapshot();
  if (stopped_ || shutting_down_ || campaigning_ || lease_ == 0 || broker_epoch_.load() == 0 ||
      s->controller != kNoBroker || s->revision == 0) {
    return;
  }
  campaigning_ = true;
  const std::string key = keys_.controller();
  std::vector<Compare> cmp{{key, Compare::Target::kCreateRevision, Compare::Op::kEqual, 0, {}}};
  std::vector<TxnOp> put{
      {TxnOp::Kind::kPut, key, encode_controller(options_.broker_id), lease_, false}};
  store_.txn(std::move(cmp), std::move(put), {}, guard(self_, [this](const Result<TxnResult>& r) {
               campaigning_ = false;
               if (r.ok() && r->succeeded) {
                 campaign_epoch_ = r->revision;
                 spdlog::info("cluster: broker {} is the controller, epoch {}", options_.broker_id,
                              r->revision);
                 run_controller();
               }
             }));
}

bool EtcdClusterMember::is_controller() const {
  SnapshotPtr s = snapshot();
  return campaign_epoch_ != 0 && s->controller == options_.broker_id &&
         s->controller_epoch == campaign_epoch_;
}

void EtcdClusterMember::run_controller() {
  if (stopped_ || !is_controller()) return;
  SnapshotPtr s = snapshot();
  ControllerPolicy policy;
  policy.unclean_leader_election = options_.unclean_leader_election;
  for (ControllerTxn& t : decide(*s, keys_, campaign_epoch_, policy)) {
    const bool busy = std::any_of(t.writes.begin(), t.writes.end(),
                                  [&](const KeyWrite& w) { return in_flight_.contains(w.key); });
    if (busy) continue;
    std::vector<Compare> cmp;
    std::vector<TxnOp> ops;
    to_txn(t, keys_, campaign_epoch_, &cmp, &ops);
    std::vector<std::string> written;
    for (const KeyWrite& w : t.writes) {
      in_flight_.insert(w.key);
      written.push_back(w.key);
    }
    spdlog::info("cluster: controller: {}", t.why);
    store_.txn(std::move(cmp), std::move(ops), {},
               guard(self_, [this, written, why = t.why](const Result<TxnResult>& r) {
                 for (const std::string& k : written) in_flight_.erase(k);
                 if (r.ok() && r->succeeded) {
                   // Decide again once the snapshot shows this write.
                   if (snapshot()->revision >= r->revision) run_controller();
                   return;
                 }
                 spdlog::info("cluster: controller write not made ({}): {}", why,
                              r.ok() ? "state changed meanwhile" : r.status().to_string());
                 schedule_retry();
               }));
  }
}

void EtcdClusterMember::schedule_retry() {
  if (retry_scheduled_ || stopped_) return;
  retry_scheduled_ = true;
  retry_timer_.expires_after(kRetryDelay);
  retry_timer_.async_wait(guard(self_, [this](std::error_code ec) {
    retry_scheduled_ = false;
    if (ec) return;
    campaign();
    run_controller();
  }));
}

// --- requests ---

void EtcdClusterMember::create_topic(NewTopic nt, std::function<void(Status)> done) {
  auto fail = [&](Status st) { asio::post(io_, [done, st] { done(st); }); };
  if (Status st = validate_topic_name(nt.name); !st.ok())
    return fail(invalid(std::string(st.message())));
  if (nt.partitions <= 0 || nt.partitions > kMaxPartitions) {
    return fail(invalid("partition count out of range"));
  }
  if (nt.replication_factor <= 0 || nt.replication_factor > kMaxReplicationFactor) {
    return fail(invalid("replication factor out of range"));
  }
  SnapshotPtr s = snapshot();
  if (s->topics.contains(nt.name)) {
    return fail(Status(ErrorCode::kTopicExists, "topic " + nt.name + " exists"));
  }
  std::vector<PlacementBroker> brokers;
  for (const auto& [id, b] : s->brokers) {
    if (!b.shutting_down) brokers.push_back(PlacementBroker{id, b.rack});
  }
  auto replicas =
      assign_replicas(std::move(brokers), nt.partitions, nt.replication_factor, nt.name);
  if (!replicas.ok()) return fail(replicas.status());

  TopicAssignment t;
  t.name = nt.name;
  t.replicas = std::move(*replicas);
  t.settings = nt.settings;
  const std::string key = keys_.topic(nt.name);
  std::vector<Compare> cmp{{key, Compare::Target::kCreateRevision, Compare::Op::kEqual, 0, {}}};
  std::vector<TxnOp> ops{{TxnOp::Kind::kPut, key, encode_topic(t), 0, false}};
  if (t.replicas.size() + 1 <= kMaxTxnOps) {
    for (size_t p = 0; p < t.replicas.size(); ++p) {
      PartitionState st;
      st.leader = t.replicas[p].front();
      st.isr = t.replicas[p];
      st.controller_epoch = s->controller_epoch;
      ops.push_back(TxnOp{TxnOp::Kind::kPut, keys_.partition(nt.name, static_cast<int32_t>(p)),
                          encode_partition(st), 0, false});
    }
  }
  store_.txn(std::move(cmp), std::move(ops), {},
             [done, name = nt.name](const Result<TxnResult>& r) {
               if (!r.ok()) return done(r.status());
               if (!r->succeeded)
                 return done(Status(ErrorCode::kTopicExists, "topic " + name + " exists"));
               done(Status::Ok());
             });
}

void EtcdClusterMember::delete_topic(std::string name, std::function<void(Status)> done) {
  const std::string key = keys_.topic(name);
  std::vector<Compare> cmp{{key, Compare::Target::kCreateRevision, Compare::Op::kGreater, 0, {}}};
  std::vector<TxnOp> ops{{TxnOp::Kind::kDelete, key, {}, 0, false},
                         {TxnOp::Kind::kDelete, keys_.partitions_of(name), {}, 0, true}};
  store_.txn(std::move(cmp), std::move(ops), {}, [done, name](const Result<TxnResult>& r) {
    if (!r.ok()) return done(r.status());
    if (!r->succeeded) return done(Status(ErrorCode::kUnknownTopic, "no topic " + name));
    done(Status::Ok());
  });
}

void EtcdClusterMember::alter_isr(const PartitionKey& pk, const PartitionState& expected,
                                  std::vector<BrokerId> isr,
                                  std::function<void(Result<PartitionState>)> done) {
  auto fail = [&](Status st) { asio::post(io_, [done, st] { done(st); }); };
  const int64_t epoch = broker_epoch_.load();
  if (epoch == 0) return fail(Status(ErrorCode::kCoordinationUnavailable, "not registered"));
  if (expected.leader != options_.broker_id) {
    return fail(Status(ErrorCode::kFencedLeaderEpoch, "this broker is not the leader"));
  }
  SnapshotPtr s = snapshot();
  auto topic = s->topics.find(pk.topic);
  if (topic == s->topics.end() || pk.partition < 0 ||
      static_cast<size_t>(pk.partition) >= topic->second.replicas.size()) {
    return fail(Status(ErrorCode::kUnknownPartition,
                       "no partition " + pk.topic + "/" + std::to_string(pk.partition)));
  }
  const auto& replicas = topic->second.replicas[static_cast<size_t>(pk.partition)];
  std::vector<BrokerId> sorted = isr;
  std::sort(sorted.begin(), sorted.end());
  if (isr.empty() || !contains(isr, options_.broker_id) ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() ||
      !std::all_of(isr.begin(), isr.end(), [&](BrokerId b) { return contains(replicas, b); })) {
    return fail(invalid("an ISR must hold the leader and only distinct replicas"));
  }
  const PartitionState* now = s->partition(pk.topic, pk.partition);
  if (now != nullptr && now->mod_revision == expected.mod_revision &&
      (now->leader != expected.leader || now->leader_epoch != expected.leader_epoch)) {
    return fail(invalid("expected state does not match the stored one"));
  }
  PartitionState next = expected;
  next.isr = std::move(isr);
  const std::string key = keys_.partition(pk.topic, pk.partition);
  std::vector<Compare> cmp{
      {key, Compare::Target::kModRevision, Compare::Op::kEqual, expected.mod_revision, {}},
      {keys_.broker(options_.broker_id),
       Compare::Target::kCreateRevision,
       Compare::Op::kEqual,
       epoch,
       {}}};
  std::vector<TxnOp> ops{{TxnOp::Kind::kPut, key, encode_partition(next), 0, false}};
  store_.txn(std::move(cmp), std::move(ops), {}, [done, next](const Result<TxnResult>& r) mutable {
    if (!r.ok()) return done(r.status());
    if (!r->succeeded) {
      return done(Status(ErrorCode::kFencedLeaderEpoch,
                         "partition state or this broker's registration changed meanwhile"));
    }
    next.mod_revision = r->revision;
    done(std::move(next));
  });
}

void EtcdClusterMember::reassign(std::string topic, std::vector<ReassignOrder> orders,
                                 std::function<void(ReassignOutcome)> done) {
  reassign_attempt(std::move(topic), std::move(orders), kReassignAttempts, std::move(done));
}

void EtcdClusterMember::reassign_attempt(std::string topic, std::vector<ReassignOrder> orders,
                                         int attempts_left,
                                         std::function<void(ReassignOutcome)> done) {
  auto answer = [&](ReassignOutcome outcome) {
    asio::post(io_, [done, outcome = std::move(outcome)]() mutable { done(std::move(outcome)); });
  };
  auto every = [&](const Status& st) {
    return ReassignOutcome{.results = std::vector<Status>(orders.size(), st), .revision = 0};
  };
  SnapshotPtr s = snapshot();
  auto it = s->topics.find(topic);
  if (it == s->topics.end()) {
    return answer(every(Status(ErrorCode::kUnknownTopic, "no topic " + topic)));
  }
  TopicAssignment t = it->second;
  bool changed = false;
  ReassignOutcome outcome{.results = apply_reassign_orders(*s, orders, &t, &changed),
                          .revision = 0};
  if (!changed) return answer(std::move(outcome));
  const std::string key = keys_.topic(topic);
  std::vector<Compare> cmp{
      {key, Compare::Target::kModRevision, Compare::Op::kEqual, t.mod_revision, {}}};
  std::vector<TxnOp> ops{{TxnOp::Kind::kPut, key, encode_topic(t), 0, false}};
  store_.txn(std::move(cmp), std::move(ops), {},
             guard(self_, [this, topic = std::move(topic), orders = std::move(orders),
                           attempts_left, done = std::move(done),
                           outcome = std::move(outcome)](const Result<TxnResult>& r) mutable {
               if (r.ok() && r->succeeded) {
                 outcome.revision = r->revision;
                 return done(std::move(outcome));
               }
               Status failed =
                   r.ok() ? Status(ErrorCode::kCoordinationUnavailable,
                                   "topic " + topic + " kept changing meanwhile: ask again")
                          : r.status();
               if (r.ok() && attempts_left > 1) {
                 // The controller (or another request) wrote the topic since our
                 // snapshot: decide again on a newer one.
                 auto timer = std::make_shared<asio::steady_timer>(io_, kRetryDelay);
                 timer->async_wait(guard(
                     self_, [this, timer, topic = std::move(topic), orders = std::move(orders),
                             attempts_left, done = std::move(done)](std::error_code) mutable {
                       reassign_attempt(std::move(topic), std::move(orders), attempts_left - 1,
                                        std::move(done));
                     }));
                 return;
               }
               for (Status& st : outcome.results) {
                 if (st.ok()) st = failed;
               }
               done(std::move(outcome));
             }));
}

void EtcdClusterMember::controlled_shutdown(int64_t timeout_ms, std::function<void(Status)> done) {
  const int64_t epoch = broker_epoch_.load();
  if (epoch == 0 || lease_ == 0) {
    return asio::post(
        io_, [done] { done(Status(ErrorCode::kCoordinationUnavailable, "not registered")); });
  }
  shutting_down_ = true;
  const std::string key = keys_.broker(options_.broker_id);
  std::vector<Compare> cmp{{key, Compare::Target::kCreateRevision, Compare::Op::kEqual, epoch, {}}};
  std::vector<TxnOp> ops{{TxnOp::Kind::kPut, key, my_broker_value(true), lease_, false}};
  store_.txn(std::move(cmp), std::move(ops), {},
             guard(self_, [this, done, timeout_ms](const Result<TxnResult>& r) {
               if (!r.ok()) return done(r.status());
               if (!r->succeeded) {
                 return done(Status(ErrorCode::kCoordinationUnavailable, "registration lost"));
               }
               shutdown_done_ = done;
               shutdown_timer_.expires_after(std::chrono::milliseconds(timeout_ms));
               shutdown_timer_.async_wait(guard(self_, [this](std::error_code ec) {
                 if (ec || !shutdown_done_) return;
                 std::exchange(shutdown_done_, nullptr)(
                     Status(ErrorCode::kTimeout, "partitions still led at the shutdown timeout"));
               }));
               check_shutdown_done();
             }));
}

void EtcdClusterMember::check_shutdown_done() {
  if (!shutdown_done_) return;
  SnapshotPtr s = snapshot();
  const BrokerId me = options_.broker_id;
  // Done when every partition still led here has nobody to take it: a
  // partition whose only live in-sync replica is this one stays led here
  // (offline would be worse) until the broker exits.
  for (const auto& [pk, st] : s->partitions) {
    if (st.leader != me) continue;
    for (BrokerId b : st.isr) {
      auto it = s->brokers.find(b);
      if (b != me && it != s->brokers.end() && !it->second.shutting_down) return;
    }
  }
  shutdown_timer_.cancel();
  std::exchange(shutdown_done_, nullptr)(Status::Ok());
}

void EtcdClusterMember::stop(std::function<void()> done) {
  stopped_ = true;
  keep_alive_timer_.cancel();
  retry_timer_.cancel();
  relist_timer_.cancel();
  shutdown_timer_.cancel();
  watch_.reset();
  ++watch_generation_;
  broker_epoch_.store(0);
  campaign_epoch_ = 0;
  const int64_t lease = std::exchange(lease_, 0);
  if (lease == 0) return asio::post(io_, std::move(done));
  store_.lease_revoke(lease, [done = std::move(done)](Result<bool>) { done(); });
}

}  // namespace spillway::broker::cluster
