// Partition moves as the cluster's snapshot holds them (topics/<t>
// "reassigning" and "moves", cluster_keys.h): how a reassign request
// changes a topic's assignment, what ListPartitionReassignments shows of
// each move, and which replica fetches are reassignment traffic that the
// leader throttles (docs/operations.md, "Moving a partition").
// Pure functions of a snapshot: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_member.h"
#include "cluster/cluster_state.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster {

// Applies `orders` to `topic` (a copy of the snapshot's) as
// ClusterMember::reassign describes: one Status per order, in order; an
// order that fails leaves the topic as it was for its partition. *changed
// is set when the topic differs from before (it must be written).
std::vector<Status> apply_reassign_orders(const ClusterSnapshot& snapshot,
                                          const std::vector<ReassignOrder>& orders,
                                          TopicAssignment* topic, bool* changed);

// One move in progress, as ListPartitionReassignments shows it.
struct ReassignmentView {
  std::string topic;
  int32_t partition = 0;
  std::vector<BrokerId> replicas;  // the assignment now
  std::vector<BrokerId> target;
  // In the target, not among the replicas the move started from (when
  // those are not recorded: in the target, not in the ISR).
  std::vector<BrokerId> adding;
  std::vector<BrokerId> removing;  // among the replicas now, not in the target
  std::vector<BrokerId> isr;
  BrokerId leader = kNoBroker;
  int64_t throttle_bytes_per_sec = 0;
};

// Every move in progress, by topic and partition.
std::vector<ReassignmentView> ongoing_reassignments(const ClusterSnapshot& snapshot);
size_t count_reassignments(const ClusterSnapshot& snapshot);

// The throttle of `replica`'s fetches of `topic`/`partition`: the move's
// throttle when a move with one is adding `replica` and it is not in the
// ISR yet, else 0 (not reassignment traffic, or unthrottled).
int64_t reassignment_throttle(const ClusterSnapshot& snapshot, std::string_view topic,
                              int32_t partition, BrokerId replica);

// The rate of a broker's reassignment throttle: the smallest non-zero
// throttle of the moves in progress; 0 when none is throttled.
int64_t reassignment_throttle_rate(const ClusterSnapshot& snapshot);

}  // namespace spillway::broker::cluster
