// ReplicaManager: turns each ClusterSnapshot into what this broker does
// with its partitions (docs/replication.md). On the cluster thread it
//   - makes the local topic of every topic in the snapshot (all partitions,
//     also those this broker holds no replica of: those answer
//     NOT_LEADER_OR_FOLLOWER), and deletes a local topic the cluster deleted;
//   - gives each partition its role on its owner core: leader (with the
//     stored leader epoch and ISR), follower (and the ReplicaFetcher starts
//     following the leader), or none;
//   - carries a leader's ISR changes to etcd (ClusterMember::alter_isr) and
//     the stored result back to the partition.
// When the broker's lease is lost (fenced) every partition stops leading at
// once, whatever the next snapshot says.
//
// Which cluster topic a local topic directory belongs to is recorded in
// DATA_DIR/cluster/incarnations/NAME (the create_revision of topics/NAME):
// a topic deleted and created again while this broker was down is a new
// topic, and its old log must not be served as the new one's. A local
// topic with no record (made by a standalone broker) is left alone and not
// served.
//
// Threading: on_snapshot() and on_fenced() run on the cluster thread; the
// partitions' methods are posted to their owner cores.
#pragma once

#include <asio/io_context.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "cluster/cluster_member.h"
#include "cluster/cluster_state.h"
#include "config/broker_config.h"
#include "core/topic_registry.h"
#include "replication/replica_fetcher.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::replication {

class ReplicaManager {
 public:
  // Every argument outlives the manager. `cluster_thread` runs the
  // member's callbacks (and this manager's work).
  ReplicaManager(const BrokerConfig& config, TopicRegistry& topics, storage::FileSystem& fs,
                 cluster::ClusterMember& member, ReplicaFetcher& fetcher,
                 asio::io_context& cluster_thread);

  // Cluster thread.
  void on_snapshot(cluster::SnapshotPtr snapshot);
  void on_fenced();

 private:
  struct Applied {
    Role role = Role::kNone;
    BrokerId leader = kNoBroker;
    int32_t leader_epoch = -1;
    int64_t mod_revision = 0;
    std::vector<BrokerId> registered;  // replicas registered (leader only)
  };

  void sync_topics(const cluster::ClusterSnapshot& snapshot);
  void apply_partition(const cluster::ClusterSnapshot& snapshot,
                       const cluster::TopicAssignment& topic, int32_t index,
                       const std::shared_ptr<Partition>& partition);
  void write_isr(const cluster::PartitionKey& key, const cluster::PartitionState& expected,
                 std::vector<BrokerId> isr, std::weak_ptr<Partition> partition);
  int64_t stored_incarnation(const std::string& topic) const;  // 0 = none
  Status store_incarnation(const std::string& topic, int64_t revision);
  void forget_incarnation(const std::string& topic);
  std::string incarnation_path(const std::string& topic) const;

  const BrokerConfig& config_;
  TopicRegistry& topics_;
  storage::FileSystem& fs_;
  cluster::ClusterMember& member_;
  ReplicaFetcher& fetcher_;
  asio::io_context& cluster_thread_;
  const BrokerId self_;
  std::map<cluster::PartitionKey, Applied> applied_;
  // The records of DATA_DIR/cluster/incarnations/, read once per topic and
  // kept here, so a snapshot (one per ISR change) reads no file.
  mutable std::map<std::string, int64_t, std::less<>> incarnations_;
};

}  // namespace spillway::broker::replication
