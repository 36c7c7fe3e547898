// Partition moves in a snapshot: the request's rules and the views.
#include "cluster/reassignment.h"

#include <algorithm>
#include <set>

#include "cluster/cluster_keys.h"

namespace spillway::broker::cluster {

namespace {

bool contains(const std::vector<BrokerId>& v, BrokerId b) {
  return std::find(v.begin(), v.end(), b) != v.end();
}

// The members of `a` that are not in `b`, in `a`'s order.
std::vector<BrokerId> minus(const std::vector<BrokerId>& a, const std::vector<BrokerId>& b) {
  std::vector<BrokerId> out;
  for (BrokerId x : a) {
    if (!contains(b, x)) out.push_back(x);
  }
  return out;
}

std::string live_list(const ClusterSnapshot& s) {
  std::string out;
  for (const auto& [id, b] : s.brokers) {
    if (!out.empty()) out += ",";
    out += std::to_string(id);
  }
  return out.empty() ? "none" : out;
}

// Why `replicas` cannot be a partition's replica set, or Ok.
Status check_replicas(const ClusterSnapshot& s, const std::vector<BrokerId>& replicas) {
  if (replicas.size() > static_cast<size_t>(kMaxReplicationFactor)) {
    return Status(ErrorCode::kInvalidReplicaAssignment,
                  "at most " + std::to_string(kMaxReplicationFactor) + " replicas, not " +
                      std::to_string(replicas.size()));
  }
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (std::find(replicas.begin(), replicas.begin() + static_cast<std::ptrdiff_t>(i),
                  replicas[i]) != replicas.begin() + static_cast<std::ptrdiff_t>(i)) {
      return Status(ErrorCode::kInvalidReplicaAssignment,
                    "broker " + std::to_string(replicas[i]) + " is named twice");
    }
    if (!s.brokers.contains(replicas[i])) {
      return Status(ErrorCode::kInvalidReplicaAssignment,
                    "broker " + std::to_string(replicas[i]) +
                        " is not a live broker of the cluster (live: " + live_list(s) + ")");
    }
  }
  return Status::Ok();
}

Status apply_one(const ClusterSnapshot& s, const ReassignOrder& o, TopicAssignment* t,
                 std::set<int32_t>* seen, bool* changed) {
  const std::string where = t->name + "/" + std::to_string(o.partition);
  if (o.partition < 0 || static_cast<size_t>(o.partition) >= t->replicas.size()) {
    const size_t n = t->replicas.size();
    return Status(ErrorCode::kUnknownPartition, "no partition " + where + " (the topic has " +
                                                    std::to_string(n) +
                                                    (n == 1 ? " partition)" : " partitions)"));
  }
  if (!seen->insert(o.partition).second) {
    return Status(ErrorCode::kInvalidArgument, "partition " + where + " is named twice");
  }
  if (o.throttle_bytes_per_sec < 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "the throttle is 0 (none) or a number of bytes per second, not " +
                      std::to_string(o.throttle_bytes_per_sec));
  }
  std::vector<BrokerId>& now = t->replicas[static_cast<size_t>(o.partition)];
  auto move = t->reassigning.find(o.partition);
  if (o.replicas.empty()) {  // cancel
    if (move == t->reassigning.end()) {
      return Status(ErrorCode::kNoReassignmentInProgress, where + " is not being moved");
    }
    Reassignment& m = move->second;
    if (m.original.empty()) {
      return Status(ErrorCode::kInvalidArgument,
                    "the move of " + where +
                        " does not record the replicas it started from (an older broker wrote "
                        "it): reassign it to the replicas wanted instead");
    }
    if (now == m.original) {
      t->reassigning.erase(move);  // nothing was added yet
    } else {
      // Back to where it started: the controller takes the added
      // replicas out again once the original ones are in sync.
      m.target = m.original;
      m.throttle_bytes_per_sec = 0;
    }
    *changed = true;
    return Status::Ok();
  }
  if (Status st = check_replicas(s, o.replicas); !st.ok()) return st;
  if (now == o.replicas) {
    // Already there: any move of the partition ends (nothing to do).
    if (move != t->reassigning.end()) {
      t->reassigning.erase(move);
      *changed = true;
    }
    return Status::Ok();
  }
  if (move == t->reassigning.end()) {
    t->reassigning[o.partition] = Reassignment{
        .target = o.replicas, .original = now, .throttle_bytes_per_sec = o.throttle_bytes_per_sec};
    *changed = true;
    return Status::Ok();
  }
  // A new target or throttle for a move in progress: it keeps the replicas
  // it started from.
  Reassignment next = move->second;
  next.target = o.replicas;
  next.throttle_bytes_per_sec = o.throttle_bytes_per_sec;
  if (next != move->second) {
    move->second = std::move(next);
    *changed = true;
  }
  return Status::Ok();
}

std::vector<BrokerId> adding_of(const Reassignment& m, const std::vector<BrokerId>& isr) {
  return minus(m.target, m.original.empty() ? isr : m.original);
}

}  // namespace

std::vector<Status> apply_reassign_orders(const ClusterSnapshot& snapshot,
                                          const std::vector<ReassignOrder>& orders,
                                          TopicAssignment* topic, bool* changed) {
  *changed = false;
  std::set<int32_t> seen;
  std::vector<Status> out;
  out.reserve(orders.size());
  for (const ReassignOrder& o : orders)
    out.push_back(apply_one(snapshot, o, topic, &seen, changed));
  return out;
}

std::vector<ReassignmentView> ongoing_reassignments(const ClusterSnapshot& snapshot) {
  std::vector<ReassignmentView> out;
  for (const auto& [name, t] : snapshot.topics) {
    for (const auto& [p, m] : t.reassigning) {
      if (p < 0 || static_cast<size_t>(p) >= t.replicas.size()) continue;
      ReassignmentView v;
      v.topic = name;
      v.partition = p;
      v.replicas = t.replicas[static_cast<size_t>(p)];
      v.target = m.target;
      if (const PartitionState* st = snapshot.partition(name, p); st != nullptr) {
        v.isr = st->isr;
        v.leader = st->leader;
      }
      v.adding = adding_of(m, v.isr);
      v.removing = minus(v.replicas, m.target);
      v.throttle_bytes_per_sec = m.throttle_bytes_per_sec;
      out.push_back(std::move(v));
    }
  }
  return out;
}

size_t count_reassignments(const ClusterSnapshot& snapshot) {
  size_t n = 0;
  for (const auto& [name, t] : snapshot.topics) n += t.reassigning.size();
  return n;
}

int64_t reassignment_throttle(const ClusterSnapshot& snapshot, std::string_view topic,
                              int32_t partition, BrokerId replica) {
  auto t = snapshot.topics.find(topic);
  if (t == snapshot.topics.end()) return 0;
  auto move = t->second.reassigning.find(partition);
  if (move == t->second.reassigning.end() || move->second.throttle_bytes_per_sec <= 0) return 0;
  static const std::vector<BrokerId> kNone;
  const PartitionState* st = snapshot.partition(t->first, partition);
  const std::vector<BrokerId>& isr = st != nullptr ? st->isr : kNone;
  if (contains(isr, replica) || !contains(adding_of(move->second, isr), replica)) return 0;
  return move->second.throttle_bytes_per_sec;
}

int64_t reassignment_throttle_rate(const ClusterSnapshot& snapshot) {
  int64_t rate = 0;
  for (const auto& [name, t] : snapshot.topics) {
    for (const auto& [p, m] : t.reassigning) {
      if (m.throttle_bytes_per_sec > 0 && (rate == 0 || m.throttle_bytes_per_sec < rate)) {
        rate = m.throttle_bytes_per_sec;
      }
    }
  }
  return rate;
}

}  // namespace spillway::broker::cluster
