// Turns what etcd says about /spillway/<cluster>/ into ClusterSnapshots:
// a full listing (range over the prefix) into a fresh one, a watch batch
// into a copy of the previous one with the batch applied. A value that
// does not decode (cluster_keys.h) is logged and the key treated as
// absent, so that a bad write by hand or by a future version can never
// crash a broker nor be mistaken for state.
#pragma once

#include "cluster/cluster_keys.h"
#include "cluster/cluster_state.h"
#include "cluster/kv_store.h"

namespace spillway::broker::cluster {

class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(const ClusterKeys& keys) : keys_(keys) {}

  SnapshotPtr from_range(const RangeResult& listing) const;
  // `base` with `batch` applied; its revision is the batch's.
  SnapshotPtr apply(const ClusterSnapshot& base, const WatchBatch& batch) const;

 private:
  void put(ClusterSnapshot& s, const KeyValue& kv) const;
  void erase(ClusterSnapshot& s, const std::string& key) const;

  const ClusterKeys& keys_;
};

}  // namespace spillway::broker::cluster
