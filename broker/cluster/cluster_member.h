// ClusterMember: this broker's part in the cluster's coordination through a
// KvStore (etcd). It registers the broker under its lease (the broker
// epoch is the key's create_revision), keeps the lease alive, campaigns
// for the controller key and, while it holds it, runs the controller
// (controller.h): leader elections from ISR ∩ live brokers when a broker's
// key disappears, controlled shutdown, preferred-leader rebalancing. It
// watches every key under /spillway/<cluster>/ and hands each new
// ClusterSnapshot to the broker.
//
// Safety never rests on lease timing: every controller write is a
// transaction comparing the controller key's create_revision with the
// controller's epoch and the partition key's mod_revision; an ISR change
// by a leader compares the partition key's mod_revision.
//
// Threading: every method, and every callback, runs on the KvStore's
// executor (the cluster thread), except snapshot() and broker_epoch().
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/cluster_state.h"
#include "cluster/kv_store.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster {

struct MemberOptions {
  std::string cluster_name = "spillway";
  BrokerId broker_id = 0;
  std::string rack;
  std::string native_address;  // advertised HOST:PORT
  std::string kafka_address;   // advertised HOST:PORT or empty
  int64_t lease_ttl_ms = 6'000;
  int32_t min_insync_replicas = 1;       // cluster default for topics without their own
  bool unclean_leader_election = false;  // cluster default
};

// One partition's move, as `spillway partition reassign` asks it.
struct ReassignOrder {
  int32_t partition = 0;
  // The replicas asked for, preferred leader first; empty: cancel the move
  // in progress.
  std::vector<BrokerId> replicas;
  // Bytes per second for the traffic to the replicas the move adds while
  // they are not in sync; 0: unthrottled.
  int64_t throttle_bytes_per_sec = 0;
};

// What ClusterMember::reassign did: one Status per order, in order, and
// the etcd revision of the write (0 when nothing was written).
struct ReassignOutcome {
  std::vector<Status> results;
  int64_t revision = 0;
};

// What the broker asks of a topic being created in the cluster.
struct NewTopic {
  std::string name;
  int32_t partitions = 1;
  int32_t replication_factor = 1;
  TopicSettings settings;
};

class ClusterMember {
 public:
  virtual ~ClusterMember() = default;

  // Registers (kConfig naming the id when a live broker holds it), loads
  // the first snapshot, starts the keep-alive, the watch and the
  // controller campaign; `ready` runs once the first snapshot is there.
  virtual void start(std::function<void(Status)> ready) = 0;

  // Called with every new snapshot, in revision order (cluster thread).
  virtual void set_listener(std::function<void(SnapshotPtr)> on_snapshot) = 0;
  // Called when the lease was lost (expired or unreachable for longer than
  // its TTL): the broker must stop acting as a leader at once. The member
  // registers again with a new lease (a new broker epoch) when it can.
  virtual void set_on_fenced(std::function<void()> on_fenced) = 0;

  // Any thread.
  virtual SnapshotPtr snapshot() const = 0;
  virtual int64_t broker_epoch() const = 0;  // 0 while unregistered

  // Creates topics/<t> with a rack-aware assignment over the live brokers
  // and its partitions/<t>/<p> (first replica leads, epoch 0, ISR = the
  // replicas). kTopicExists, kInvalidArgument (replication factor above
  // the live brokers), kCoordinationUnavailable.
  virtual void create_topic(NewTopic topic, std::function<void(Status)> done) = 0;
  virtual void delete_topic(std::string name, std::function<void(Status)> done) = 0;

  // The leader's ISR change: writes `isr` to partitions/<t>/<p> if its
  // mod_revision is still `expected.mod_revision` and its leader and
  // leader epoch are this broker's; the stored state after the write, or
  // kFencedLeaderEpoch when it changed meanwhile (the leader then waits
  // for the new snapshot).
  virtual void alter_isr(const PartitionKey& partition, const PartitionState& expected,
                         std::vector<BrokerId> isr,
                         std::function<void(Result<PartitionState>)> done) = 0;

  // Records moves of partitions of `topic` in its key, in one write
  // (spillway partition reassign); the controller carries them out
  // (docs/replication-controller.md). Per order:
  //   - replicas: 1..16 distinct live brokers, else
  //     kInvalidReplicaAssignment naming the broker; a move already
  //     recorded for the partition gets the new target and throttle and
  //     keeps the replicas it started from; replicas equal to the
  //     partition's present ones end any move (nothing to do);
  //   - no replicas: cancel, the move goes back to the replicas it
  //     started from (kNoReassignmentInProgress when there is none);
  //   - kUnknownTopic, kUnknownPartition, kInvalidArgument (a partition
  //     named twice, a negative throttle).
  // A write that loses a race with the controller is retried on the next
  // snapshot, a few times, then fails with kCoordinationUnavailable.
  virtual void reassign(std::string topic, std::vector<ReassignOrder> orders,
                        std::function<void(ReassignOutcome)> done) = 0;

  // Marks this broker shutting down; the controller moves the leadership
  // of its partitions elsewhere. `done` once it leads none, or at timeout.
  virtual void controlled_shutdown(int64_t timeout_ms, std::function<void(Status)> done) = 0;

  // Revokes the lease (the broker's key and any controller key go with it).
  virtual void stop(std::function<void()> done) = 0;
};

}  // namespace spillway::broker::cluster
