// The controller's decisions, as pure functions of a ClusterSnapshot: which
// partition (and topic) keys to rewrite, and to what. EtcdClusterMember
// runs them on every new snapshot while it holds the controller key, and
// turns each ControllerTxn into one etcd transaction (to_txn) that holds
// only if the controller key's create_revision is still the controller's
// epoch and every key written is still at the mod_revision decided on: a
// deposed controller, or a decision taken on a stale snapshot, writes
// nothing. docs/replication-controller.md gives the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_keys.h"
#include "cluster/cluster_state.h"
#include "cluster/kv_store.h"

namespace spillway::broker::cluster {

struct ControllerPolicy {
  bool unclean_leader_election = false;  // the cluster default (a topic may override)
  bool preferred_leader_rebalance = true;
};

// One key to write if it is still at `expected_mod_revision` (0: absent).
struct KeyWrite {
  std::string key;
  int64_t expected_mod_revision = 0;
  std::string value;
};

struct ControllerTxn {
  std::vector<KeyWrite> writes;
  std::string why;  // for the log
};

// The next state of one partition whose replicas (preferred leader first)
// are `replicas`, or nullopt when it needs no write:
//  - leader gone (no key), shutting down, or -1: the first replica in
//    order that is in the ISR, live and not shutting down leads, with
//    leader_epoch + 1 and the dead brokers out of the ISR; failing that
//    a live ISR member that is shutting down (better than offline);
//    failing that, with unclean election on, the first live replica and
//    ISR = {it}; failing that, leader -1 (offline, epoch + 1) and the ISR
//    keeps its members if removing the dead would empty it, so the last
//    in-sync replicas stay visible and lead again when they return. A
//    shutting-down leader with nobody to take over keeps leading.
//  - leader fine: dead brokers leave the ISR (leader and epoch unchanged);
//    with rebalancing, a preferred leader that is live, not shutting
//    down and in the ISR takes the leadership back (epoch + 1).
std::optional<PartitionState> next_partition_state(const ClusterSnapshot& s,
                                                   const std::vector<BrokerId>& replicas,
                                                   const PartitionState& current,
                                                   bool unclean, bool rebalance);

// Every write the controller with epoch `controller_epoch` should make
// now: elections, ISR cleanups, missing partition keys of a topic, and
// the steps of replica moves (add the new replicas; once they are all in
// the ISR, move the leadership into them; then drop the old ones from the
// replicas and the ISR).
std::vector<ControllerTxn> decide(const ClusterSnapshot& s, const ClusterKeys& keys,
                                  int64_t controller_epoch, const ControllerPolicy& policy);

// The etcd transaction of `t`: compares controller create_revision ==
// controller_epoch and each key's mod_revision, puts on success.
void to_txn(const ControllerTxn& t, const ClusterKeys& keys, int64_t controller_epoch,
            std::vector<Compare>* compares, std::vector<TxnOp>* ops);

}  // namespace spillway::broker::cluster
