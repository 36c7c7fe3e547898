// EtcdClusterMember: ClusterMember over any KvStore (EtcdKvStore in the
// broker, MemoryKvStore in tests). One object per broker, living on the
// store's io_context thread (the cluster thread); snapshot() and
// broker_epoch() may be called from any thread.
//
// Life cycle: start() grants a lease, registers brokers/<id> under it
// (create-if-absent), lists the prefix, watches it, and campaigns for the
// controller key whenever the snapshot shows none. A keep-alive runs every
// ttl/3; when the lease is gone (keep-alive answers 0) or no renewal
// succeeded for a whole TTL, the member is fenced: on_fenced runs, the
// broker epoch drops to 0, and it registers again with a new lease once
// etcd answers. docs/replication-controller.md has the details.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "asio/io_context.hpp"
#include "asio/steady_timer.hpp"
#include "cluster/cluster_keys.h"
#include "cluster/cluster_member.h"
#include "cluster/controller.h"
#include "cluster/snapshot_builder.h"

namespace spillway::broker::cluster {

class EtcdClusterMember : public ClusterMember {
 public:
  EtcdClusterMember(asio::io_context& io, KvStore& store, MemberOptions options);
  ~EtcdClusterMember() override;
  EtcdClusterMember(const EtcdClusterMember&) = delete;
  EtcdClusterMember& operator=(const EtcdClusterMember&) = delete;

  void start(std::function<void(Status)> ready) override;
  void set_listener(std::function<void(SnapshotPtr)> on_snapshot) override;
  void set_on_fenced(std::function<void()> on_fenced) override;
  SnapshotPtr snapshot() const override;
  int64_t broker_epoch() const override { return broker_epoch_.load(); }

  void create_topic(NewTopic topic, std::function<void(Status)> done) override;
  void delete_topic(std::string name, std::function<void(Status)> done) override;
  void alter_isr(const PartitionKey& partition, const PartitionState& expected,
                 std::vector<BrokerId> isr,
                 std::function<void(Result<PartitionState>)> done) override;
  void reassign(std::string topic, std::vector<ReassignOrder> orders,
                std::function<void(ReassignOutcome)> done) override;
  void controlled_shutdown(int64_t timeout_ms, std::function<void(Status)> done) override;
  void stop(std::function<void()> done) override;

  // The controller epoch this member holds (create_revision of the
  // controller key it created), 0 when it is not the controller.
  int64_t controller_epoch() const { return is_controller() ? campaign_epoch_ : 0; }
  int64_t lease() const { return lease_; }

 private:
  using Clock = std::chrono::steady_clock;

  void register_broker(std::function<void(Status)> done);
  void list();
  void on_watch(uint64_t generation, Result<WatchBatch> batch);
  void publish(SnapshotPtr next);
  void keep_alive_tick();
  void fence(const char* why);
  void campaign();
  bool is_controller() const;
  void run_controller();
  void schedule_retry();
  void check_shutdown_done();
  void reassign_attempt(std::string topic, std::vector<ReassignOrder> orders, int attempts_left,
                        std::function<void(ReassignOutcome)> done);
  std::string my_broker_value(bool shutting_down) const;

  asio::io_context& io_;
  KvStore& store_;
  MemberOptions options_;
  ClusterKeys keys_;
  SnapshotBuilder builder_;
  // Guards this object's lifetime in callbacks: they hold a weak_ptr.
  std::shared_ptr<EtcdClusterMember*> self_;

  mutable std::mutex snapshot_mu_;
  SnapshotPtr snapshot_;  // under snapshot_mu_ (written on the cluster thread only)
  std::atomic<int64_t> broker_epoch_{0};

  int64_t lease_ = 0;
  bool registering_ = false;
  bool stopped_ = false;
  bool started_ = false;
  bool shutting_down_ = false;
  Clock::time_point last_renewal_{};
  asio::steady_timer keep_alive_timer_;
  asio::steady_timer retry_timer_;
  asio::steady_timer relist_timer_;
  asio::steady_timer shutdown_timer_;

  std::unique_ptr<WatchHandle> watch_;
  uint64_t watch_generation_ = 0;
  bool listing_ = false;

  bool campaigning_ = false;
  int64_t campaign_epoch_ = 0;
  std::set<std::string> in_flight_;  // keys of controller txns not answered yet
  bool retry_scheduled_ = false;

  std::function<void(Status)> ready_;
  std::function<void(SnapshotPtr)> on_snapshot_;
  std::function<void()> on_fenced_;
  std::function<void(Status)> shutdown_done_;
};

}  // namespace spillway::broker::cluster
