// The cluster as one broker sees it (Admin::describe_cluster; native
// DescribeCluster, key 28): its live brokers, the controller, and every
// partition's leader, leader epoch, replicas and in-sync replicas
// (docs/replication.md); and partition moves between brokers
// (Admin::alter_partition_reassignments, list_partition_reassignments;
// native keys 29 and 30, docs/operations.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spillway/common/status.h"

namespace spillway {

struct ClusterBroker {
  int32_t id = -1;
  std::string native_address;  // HOST:PORT
  std::string kafka_address;   // HOST:PORT, empty without a Kafka listener
  std::string rack;
  int64_t epoch = 0;  // its registration (etcd create_revision)
};

struct ClusterPartition {
  std::string topic;
  int32_t partition = 0;
  int32_t leader = -1;  // -1: offline
  int32_t leader_epoch = 0;
  std::vector<int32_t> replicas;  // preferred leader first
  std::vector<int32_t> isr;
  bool offline = false;  // no live leader

  // Fewer in-sync replicas than replicas.
  bool under_replicated() const { return isr.size() < replicas.size(); }
};

struct ClusterDescription {
  int32_t controller_id = -1;  // -1: none
  int64_t controller_epoch = 0;
  std::vector<ClusterBroker> brokers;        // live, by id
  std::vector<ClusterPartition> partitions;  // by topic, then partition
};

// A partition move asked of the cluster.
struct PartitionReassignment {
  std::string topic;
  int32_t partition = 0;
  // The replicas wanted, preferred leader first; empty: cancel the move in
  // progress (the partition goes back to the replicas it started from).
  std::vector<int32_t> replicas;
};

// What the cluster made of one PartitionReassignment.
struct ReassignmentResult {
  std::string topic;
  int32_t partition = 0;
  // Ok: recorded (the controller now carries it out). Else
  // kInvalidReplicaAssignment (a broker that is not live, or named twice),
  // kUnknownTopic, kUnknownPartition, kNoReassignmentInProgress (a cancel
  // of a partition not being moved), kInvalidArgument, kTimeout.
  Status status;
};

// A partition move in progress.
struct OngoingReassignment {
  std::string topic;
  int32_t partition = 0;
  std::vector<int32_t> replicas;  // the assignment now: old and new replicas while moving
  std::vector<int32_t> target;    // what the move ends with
  std::vector<int32_t> adding;    // in the target, not among the replicas it started from
  std::vector<int32_t> removing;  // among the replicas now, not in the target
  std::vector<int32_t> isr;
  int32_t leader = -1;
  int64_t throttle_bytes_per_sec = 0;  // 0: unthrottled

  // The replicas being added that are not in sync yet (copying the log).
  std::vector<int32_t> catching_up() const {
    std::vector<int32_t> out;
    for (int32_t id : adding) {
      bool in_sync = false;
      for (int32_t i : isr) in_sync = in_sync || i == id;
      if (!in_sync) out.push_back(id);
    }
    return out;
  }
};

}  // namespace spillway
