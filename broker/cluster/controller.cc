#include "cluster/controller.h"

#include <algorithm>

namespace spillway::broker::cluster {

namespace {

bool contains(const std::vector<BrokerId>& v, BrokerId b) {
  return std::find(v.begin(), v.end(), b) != v.end();
}

bool live(const ClusterSnapshot& s, BrokerId b) { return s.brokers.contains(b); }

bool eligible(const ClusterSnapshot& s, BrokerId b) {
  auto it = s.brokers.find(b);
  return it != s.brokers.end() && !it->second.shutting_down;
}

std::vector<BrokerId> without_dead(const ClusterSnapshot& s, const std::vector<BrokerId>& isr) {
  std::vector<BrokerId> out;
  for (BrokerId b : isr) {
    if (live(s, b)) out.push_back(b);
  }
  return out;
}

bool unclean_for(const TopicAssignment& t, const ControllerPolicy& p) {
  if (t.settings.unclean_leader_election >= 0) return t.settings.unclean_leader_election == 1;
  return p.unclean_leader_election;
}

}  // namespace

std::optional<PartitionState> next_partition_state(const ClusterSnapshot& s,
                                                   const std::vector<BrokerId>& replicas,
                                                   const PartitionState& cur, bool unclean,
                                                   bool rebalance) {
  PartitionState next = cur;
  next.controller_epoch = s.controller_epoch;
  if (cur.leader != kNoBroker && eligible(s, cur.leader)) {
    next.isr = without_dead(s, cur.isr);
    if (!contains(next.isr, cur.leader)) next.isr.insert(next.isr.begin(), cur.leader);
    const BrokerId preferred = replicas.empty() ? kNoBroker : replicas.front();
    if (rebalance && preferred != cur.leader && eligible(s, preferred) &&
        contains(cur.isr, preferred)) {
      next.leader = preferred;
      next.leader_epoch = cur.leader_epoch + 1;
      return next;
    }
    if (next.isr == cur.isr) return std::nullopt;
    return next;
  }

  // The leader is gone, shutting down or none: elect.
  BrokerId chosen = kNoBroker;
  for (BrokerId r : replicas) {
    if (contains(cur.isr, r) && eligible(s, r)) {
      chosen = r;
      break;
    }
  }
  const bool leader_live = cur.leader != kNoBroker && live(s, cur.leader);
  if (chosen == kNoBroker && !leader_live) {
    // A live in-sync replica that is shutting down beats going offline.
    for (BrokerId r : replicas) {
      if (contains(cur.isr, r) && live(s, r)) {
        chosen = r;
        break;
      }
    }
  }
  if (chosen != kNoBroker) {
    next.leader = chosen;
    next.leader_epoch = cur.leader_epoch + 1;
    next.isr = without_dead(s, cur.isr);
    return next;
  }
  if (leader_live) return std::nullopt;  // shutting down, nobody to take over: keeps leading
  if (unclean) {
    for (BrokerId r : replicas) {
      if (eligible(s, r)) {
        next.leader = r;
        next.leader_epoch = cur.leader_epoch + 1;
        next.isr = {r};
        return next;
      }
    }
  }
  // Offline. The ISR keeps its last members so they, and only they, may
  // lead again (an unclean election stays visible as a leader outside it).
  std::vector<BrokerId> isr = without_dead(s, cur.isr);
  if (isr.empty()) isr = cur.isr;
  if (cur.leader == kNoBroker && isr == cur.isr) return std::nullopt;
  next.leader = kNoBroker;
  if (cur.leader != kNoBroker) next.leader_epoch = cur.leader_epoch + 1;
  next.isr = std::move(isr);
  return next;
}

namespace {

// Creation state of a partition: the first live replica leads, ISR = the
// replicas (the log is empty everywhere).
PartitionState initial_state(const ClusterSnapshot& s, const std::vector<BrokerId>& replicas,
                             int64_t epoch) {
  PartitionState p;
  p.isr = replicas;
  p.controller_epoch = epoch;
  for (BrokerId r : replicas) {
    if (eligible(s, r)) {
      p.leader = r;
      break;
    }
  }
  return p;
}

// The replica-move step of partition `p` of `t`, if any: may change
// `topic` (the new assignment) and add partition writes to `txn`.
// Returns true when the topic key changes; `alone` gets a write that goes
// in its own transaction, `with_topic` one that goes with the topic's.
bool reassign_step(const ClusterSnapshot& s, const ClusterKeys& keys, int64_t epoch,
                   const TopicAssignment& t, int32_t p, const std::vector<BrokerId>& target,
                   const PartitionState& st, TopicAssignment* topic,
                   std::vector<KeyWrite>* alone, std::vector<KeyWrite>* with_topic) {
  std::vector<BrokerId>& reps = topic->replicas[static_cast<size_t>(p)];
  // 1: the new replicas join the assignment (they start fetching).
  bool missing = false;
  for (BrokerId b : target) {
    if (!contains(reps, b)) {
      reps.push_back(b);
      missing = true;
    }
  }
  if (missing) return true;
  // 2: wait until every new replica is in sync.
  for (BrokerId b : target) {
    if (!contains(st.isr, b)) return false;
  }
  // 3: leadership into the target set first (own txn; the next snapshot
  // continues).
  if (!contains(target, st.leader)) {
    for (BrokerId b : target) {
      if (eligible(s, b)) {
        PartitionState next = st;
        next.leader = b;
        next.leader_epoch = st.leader_epoch + 1;
        next.controller_epoch = epoch;
        alone->push_back(
            KeyWrite{keys.partition(t.name, p), st.mod_revision, encode_partition(next)});
        return false;
      }
    }
    return false;
  }
  // 4: drop the old replicas from the ISR and the assignment together.
  PartitionState next = st;
  next.isr.clear();
  for (BrokerId b : st.isr) {
    if (contains(target, b)) next.isr.push_back(b);
  }
  next.controller_epoch = epoch;
  with_topic->push_back(KeyWrite{keys.partition(t.name, p), st.mod_revision, encode_partition(next)});
  reps = target;
  topic->reassigning.erase(p);
  return true;
}

}  // namespace

std::vector<ControllerTxn> decide(const ClusterSnapshot& s, const ClusterKeys& keys,
                                  int64_t controller_epoch, const ControllerPolicy& policy) {
  std::vector<ControllerTxn> out;
  for (const auto& [name, t] : s.topics) {
    const bool unclean = unclean_for(t, policy);
    TopicAssignment moved = t;
    ControllerTxn move_txn;  // the topic key and the partitions whose move ends
    bool topic_changed = false;
    for (size_t i = 0; i < t.replicas.size(); ++i) {
      const auto p = static_cast<int32_t>(i);
      const PartitionState* st = s.partition(name, p);
      if (st == nullptr) {
        out.push_back(ControllerTxn{{KeyWrite{keys.partition(name, p), 0,
                                              encode_partition(initial_state(s, t.replicas[i], controller_epoch))}},
                                    "create partition " + name + "/" + std::to_string(p)});
        continue;
      }
      auto next = next_partition_state(s, t.replicas[i], *st, unclean,
                                       policy.preferred_leader_rebalance &&
                                           !t.reassigning.contains(p));
      if (next) {
        next->controller_epoch = controller_epoch;
        out.push_back(ControllerTxn{{KeyWrite{keys.partition(name, p), st->mod_revision,
                                              encode_partition(*next)}},
                                    "partition " + name + "/" + std::to_string(p) + " leader " +
                                        std::to_string(next->leader) + " epoch " +
                                        std::to_string(next->leader_epoch)});
        continue;  // a move waits for the election to land
      }
      auto target = t.reassigning.find(p);
      if (target != t.reassigning.end()) {
        std::vector<KeyWrite> alone;
        if (reassign_step(s, keys, controller_epoch, t, p, target->second.target, *st, &moved,
                          &alone, &move_txn.writes)) {
          topic_changed = true;
        }
        for (KeyWrite& w : alone) {
          out.push_back(ControllerTxn{{std::move(w)}, "move leadership of " + name + "/" +
                                                          std::to_string(p) + " into its new replicas"});
        }
      }
    }
    if (topic_changed) {
      move_txn.writes.insert(move_txn.writes.begin(),
                             KeyWrite{keys.topic(name), t.mod_revision, encode_topic(moved)});
      move_txn.why = "reassignment step of " + name;
      out.push_back(std::move(move_txn));
    }
  }
  return out;
}

void to_txn(const ControllerTxn& t, const ClusterKeys& keys, int64_t controller_epoch,
            std::vector<Compare>* compares, std::vector<TxnOp>* ops) {
  compares->push_back(Compare{keys.controller(), Compare::Target::kCreateRevision,
                              Compare::Op::kEqual, controller_epoch, {}});
  for (const KeyWrite& w : t.writes) {
    compares->push_back(Compare{w.key, Compare::Target::kModRevision, Compare::Op::kEqual,
                                w.expected_mod_revision, {}});
    ops->push_back(TxnOp{TxnOp::Kind::kPut, w.key, w.value, 0, false});
  }
}

}  // namespace spillway::broker::cluster
