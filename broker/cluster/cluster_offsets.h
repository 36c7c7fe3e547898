// ClusterOffsets: consumer groups' committed offsets in a cluster, kept in
// etcd (ClusterKeys::group_offsets, one key per group) so that they outlive
// the group's coordinator. Kafka keeps them in its replicated
// __consumer_offsets topic; a group commits rarely next to what it reads,
// and etcd already orders every other write of the cluster.
//
// The coordinator (kafka/group_ownership.h) serves a group's offsets from
// the local OffsetStore once it has loaded them from etcd: ready() loads
// them the first time, and again whenever the live brokers changed (the
// group may have been coordinated elsewhere meanwhile). A commit is a
// compare-and-swap on the key's mod_revision, then the local store: a
// broker that lost the group (another one wrote since) is told so instead
// of overwriting the newer offsets. One commit per group is in flight at a
// time; the others wait their turn, in order.
//
// Threading: any core; a mutex guards the table. Callbacks run on the
// executor each call was given.
#pragma once

#include <asio/any_io_executor.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_admin.h"
#include "core/offset_store.h"

namespace spillway::broker::cluster {

class ClusterOffsets {
 public:
  // Both outlive this.
  ClusterOffsets(ClusterAdmin& admin, OffsetStore& store) : admin_(admin), store_(store) {}

  // True when `group`'s offsets are loaded for the current live brokers.
  // Otherwise starts loading them (once; completion on `executor`) and
  // returns false: the caller answers COORDINATOR_LOAD_IN_PROGRESS and the
  // client asks again.
  bool ready(const std::string& group, asio::any_io_executor executor);

  // Stores `entries` of `group` (the group's other offsets kept) in etcd,
  // then in the local store, then done(status) on `executor`. Errors:
  // kNotLeaderOrFollower when another broker wrote the group's offsets
  // since this one loaded them (it coordinates the group now: Kafka's
  // NOT_COORDINATOR), kCoordinationUnavailable when etcd does not answer or
  // the offsets are not loaded (yet), kResourceExhausted when the group's
  // offsets no longer fit one etcd value, the local store's errors.
  void commit(std::string group, std::vector<OffsetStore::Entry> entries,
              asio::any_io_executor executor, std::function<void(Status)> done);

 private:
  struct Pending {
    std::vector<OffsetStore::Entry> entries;
    asio::any_io_executor executor;
    std::function<void(Status)> done;
  };
  struct GroupState {
    bool loaded = false;
    bool loading = false;
    bool writing = false;
    uint64_t generation = 0;    // membership generation the load belongs to
    int64_t revision = 0;       // the key's mod_revision this broker knows
    std::deque<Pending> queue;  // commits waiting for the one in flight
  };
  using Membership = std::vector<std::pair<BrokerId, int64_t>>;  // id, broker epoch

  // Under mu_: a new membership generation when the live brokers changed.
  void check_membership();
  void write_next(const std::string& group);
  void finish(const std::string& group, Pending& p, Status st);

  ClusterAdmin& admin_;
  OffsetStore& store_;
  std::mutex mu_;
  Membership membership_;                                  // under mu_
  uint64_t generation_ = 0;                                // under mu_
  std::map<std::string, GroupState, std::less<>> groups_;  // under mu_
};

}  // namespace spillway::broker::cluster
