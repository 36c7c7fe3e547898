// ClusterNode: everything a broker runs to be a member of a replicated
// cluster (docs/replication.md), built by main() when [cluster]
// etcd_endpoints is set: the cluster thread (one io_context) with the etcd
// client (EtcdKvStore), this broker's ClusterMember (registration, lease,
// controller campaign, the watch), the ReplicaManager that applies each
// snapshot to the local partitions, and the ReplicaFetcher that pulls the
// partitions this broker follows. It is also the handlers' ClusterAdmin.
#pragma once

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_admin.h"
#include "cluster/cluster_member.h"
#include "cluster/kv_store.h"
#include "config/broker_config.h"
#include "core/topic_registry.h"
#include "replication/replica_fetcher.h"
#include "replication/replica_manager.h"
#include "replication/replication_throttle.h"
#include "runtime/core_set.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::cluster {

class ClusterNode final : public ClusterAdmin {
 public:
  struct Addresses {
    std::string native;  // advertised HOST:PORT of the native listener
    std::string kafka;   // advertised HOST:PORT of the first Kafka listener, or empty
  };

  // Every argument outlives the node.
  ClusterNode(const BrokerConfig& config, TopicRegistry& topics, storage::FileSystem& fs,
              CoreSet& cores);
  ~ClusterNode() override;

  // Starts the cluster thread, registers this broker (advertising
  // `addresses`) and waits for the first snapshot. Errors: kConfig (the id
  // is taken by a live broker, bad endpoints), kCoordinationUnavailable
  // (etcd did not answer within the lease TTL times three).
  Status start(const Addresses& addresses);

  // Controlled shutdown: asks the controller to move this broker's
  // leaderships away and calls `done` once it leads nothing or at
  // [cluster] controlled_shutdown_timeout_ms (any thread).
  void prepare_stop(std::function<void()> done);
  // Closes the follower links (on core 0's thread while it still runs:
  // the fetcher lives on core 0's io_context).
  void stop_fetching();
  // Revokes the lease and joins the cluster thread (after the cores ended).
  void stop();

  ClusterMember& member() { return *member_; }
  // The reassignment throttle this broker applies as a leader; its rate
  // follows the snapshots (any thread).
  replication::ReplicationThrottle& replication_throttle() { return throttle_; }

  // ClusterAdmin.
  void create_topic(NewTopic topic, asio::any_io_executor executor,
                    std::function<void(Status)> done) override;
  void delete_topic(std::string name, asio::any_io_executor executor,
                    std::function<void(Status)> done) override;
  void read_group_offsets(std::string group, asio::any_io_executor executor,
                          std::function<void(Result<StoredOffsets>)> done) override;
  void write_group_offsets(std::string group, int64_t expected, std::vector<GroupOffset> offsets,
                           asio::any_io_executor executor,
                           std::function<void(Result<int64_t>)> done) override;
  void reassign_partitions(std::string topic, std::vector<ReassignOrder> orders,
                           asio::any_io_executor executor,
                           std::function<void(std::vector<Status>)> done) override;
  SnapshotPtr snapshot() const override { return member_->snapshot(); }
  BrokerId broker_id() const override { return static_cast<BrokerId>(config_.node_id); }

 private:
  // A request waiting until this broker's snapshot shows what it wrote.
  struct Waiter {
    std::function<bool(const ClusterSnapshot&)> shown;
    std::string what;  // "topic t was created", for the timeout's message
    int64_t deadline_ms = 0;
    asio::any_io_executor executor;
    std::function<void(Status)> done;
  };
  // One attempt to register and load the first snapshot (a new member).
  Status start_member(const MemberOptions& options);
  void on_snapshot(SnapshotPtr snapshot);  // cluster thread
  void release_waiters(const ClusterSnapshot* snapshot, bool expired_only);
  void wait_for(Waiter waiter);  // cluster thread

  const BrokerConfig& config_;
  TopicRegistry& topics_;
  storage::FileSystem& fs_;
  CoreSet& cores_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::unique_ptr<KvStore> store_;
  std::unique_ptr<ClusterMember> member_;
  std::unique_ptr<replication::ReplicaFetcher> fetcher_;
  std::unique_ptr<replication::ReplicaManager> manager_;
  std::vector<Waiter> waiters_;  // cluster thread
  replication::ReplicationThrottle throttle_;
  std::thread thread_;
  std::atomic<bool> stopped_{false};
};

}  // namespace spillway::broker::cluster
