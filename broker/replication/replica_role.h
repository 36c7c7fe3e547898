// What a Partition is in a replicated cluster, and the requests its
// replication methods take (docs/replication.md). Partition (core/partition.h)
// carries the role on its owner core; the ReplicaManager (replica_manager.h)
// sets it from each ClusterSnapshot; the ReplicaFetch and LeaderEpochEnd
// handlers and the follower's ReplicaFetcher call the methods below.
//
// Partition methods added for replication (owner core; results through
// the usual Reply, `PartitionReply` fields as listed):
//
//   become_leader(LeaderRole)         new epoch: assigns it in the epoch cache
//                                     at the log end; produce is accepted,
//                                     reads are capped at the high watermark
//   become_follower(FollowerRole)     produce and client fetch refused with
//                                     kNotLeaderOrFollower; the fetcher drives it
//   become_none()                     not a replica (or the lease was lost):
//                                     everything refused, kNotLeaderOrFollower
//   isr_changed(PartitionState)       the stored state after an ISR write
//   append(... AckAfter::kIsr ...)    acks=all: kNotEnoughReplicas before the
//                                     append when |ISR| < min_insync; answered once
//                                     the high watermark covers the batch
//   replica_read(ReplicaReadRequest, Reply)   leader side of a follower's fetch:
//                                     epochs checked, the follower's log end
//                                     recorded, HW advanced; slice + HW + log start
//   append_replicated(batches, rented, leader_hw, Reply)   follower side
//   truncate_to(Offset, Reply)                             follower side
//   epoch_end(LeaderEpoch requested, LeaderEpoch current, Reply)
//                                     OffsetForLeaderEpoch: PartitionReply's
//                                     leader_epoch / last_offset = end offset
//
// With no cluster the role is kStandalone and everything is as before.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "cluster/cluster_state.h"
#include "spillway/common/ids.h"
#include "spillway/common/status.h"

namespace spillway::broker::replication {

enum class Role { kStandalone, kLeader, kFollower, kNone };

struct LeaderRole {
  cluster::PartitionState state;  // leader == this broker
  std::vector<BrokerId> replicas;
  // The replicas whose brokers are registered in the cluster: only these
  // may join the ISR (LeaderState::set_registered).
  std::vector<BrokerId> registered;
  int32_t min_insync_replicas = 1;
  int64_t replica_lag_time_max_ms = 10'000;
};

struct FollowerRole {
  BrokerId leader = kNoBroker;
  LeaderEpoch leader_epoch{0};
};

// A follower's fetch of one partition, as the leader sees it.
struct ReplicaReadRequest {
  BrokerId replica = kNoBroker;
  int64_t broker_epoch = 0;             // the follower's registration
  LeaderEpoch current_leader_epoch{0};  // the epoch it follows (KIP-320)
  Offset fetch_offset{0};               // = its log end (durable end under `durable`)
  uint64_t max_bytes = 0;
};

// How the leader asks the cluster to store an ISR change (ClusterMember::
// alter_isr through the cluster thread); the answer comes back to the
// partition as isr_changed() or, on a failed compare, a later snapshot.
using IsrWriter =
    std::function<void(const cluster::PartitionKey&, const cluster::PartitionState& expected,
                       std::vector<BrokerId> isr)>;

}  // namespace spillway::broker::replication
