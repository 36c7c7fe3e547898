// The cluster as one broker sees it (Admin::describe_cluster; native
// DescribeCluster, key 28): its live brokers, the controller, and every
// partition's leader, leader epoch, replicas and in-sync replicas
// (docs/replication.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace spillway
