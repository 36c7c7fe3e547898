// The cluster as one broker sees it: an immutable snapshot of the keys
// under /spillway/<cluster>/ in etcd (docs/replication.md), replaced
// whole on every change the broker's watch delivers. Readable from any
// thread through ClusterMember::snapshot().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spillway/common/ids.h"

namespace spillway::broker::cluster {

// brokers/<id>, attached to the broker's lease: present = alive.
struct BrokerInfo {
  BrokerId id = kNoBroker;
  std::string native_address;  // HOST:PORT (advertised)
  std::string kafka_address;   // HOST:PORT (advertised; empty = no Kafka listener)
  std::string rack;
  int64_t epoch = 0;           // create_revision of the key: the broker epoch
  bool shutting_down = false;  // controlled shutdown asked: lead nothing
};

// Per-topic settings replicated with the topic (a subset of TopicConfig
// that every replica must agree on).
struct TopicSettings {
  std::string flush_policy;  // "" = each broker's default
  int64_t retention_bytes = -2;
  int64_t retention_ms = -2;
  int64_t segment_bytes = -2;
  int32_t min_insync_replicas = 0;       // 0 = the brokers' [cluster] default
  int32_t unclean_leader_election = -1;  // -1 = default, 0 off, 1 on
};

// A partition being moved (ClusterMember::reassign): the replicas asked
// for, the ones it started from, and the throttle of the traffic to the
// replicas it adds (docs/operations.md, "Moving a partition").
struct Reassignment {
  std::vector<BrokerId> target;  // preferred leader first
  // The partition's replicas when the move began (a cancel goes back to
  // them); empty when a broker that did not record them wrote the move.
  std::vector<BrokerId> original;
  int64_t throttle_bytes_per_sec = 0;  // 0: unthrottled
  bool operator==(const Reassignment&) const = default;
};

// topics/<t>: the replica assignment (per partition, preferred leader
// first) and the settings.
struct TopicAssignment {
  std::string name;
  std::vector<std::vector<BrokerId>> replicas;  // index = partition
  // Partitions being moved: partition -> its move. The controller adds
  // the target to `replicas`, waits for it to join the ISR, then drops
  // the others (docs/replication-controller.md).
  std::map<int32_t, Reassignment> reassigning;
  TopicSettings settings;
  int64_t mod_revision = 0;
  // The key's create_revision: which incarnation of the name this is (a
  // topic deleted and created again is a new topic).
  int64_t create_revision = 0;
};

// partitions/<t>/<p>: written by the controller (leader elections) and the
// leader (ISR changes), always by compare-and-swap on mod_revision.
struct PartitionState {
  BrokerId leader = kNoBroker;  // kNoBroker: offline
  int32_t leader_epoch = 0;
  std::vector<BrokerId> isr;
  int64_t controller_epoch = 0;  // of the controller that last elected
  int64_t mod_revision = 0;      // not stored in the value: the key's own
};

struct PartitionKey {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const PartitionKey&) const = default;
};

struct ClusterSnapshot {
  int64_t revision = 0;  // the etcd revision this snapshot reflects
  std::map<BrokerId, BrokerInfo> brokers;  // live ones only
  BrokerId controller = kNoBroker;
  int64_t controller_epoch = 0;  // create_revision of the controller key
  std::map<std::string, TopicAssignment, std::less<>> topics;
  std::map<PartitionKey, PartitionState> partitions;

  const PartitionState* partition(const std::string& topic, int32_t p) const {
    auto it = partitions.find(PartitionKey{topic, p});
    return it == partitions.end() ? nullptr : &it->second;
  }
};

using SnapshotPtr = std::shared_ptr<const ClusterSnapshot>;

}  // namespace spillway::broker::cluster
