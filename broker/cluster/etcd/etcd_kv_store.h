// EtcdKvStore: the KvStore of a real etcd 3.4 cluster, spoken to through
// its v3 HTTP/JSON gateway (docs/replication-etcd.md): unary calls share one
// keep-alive connection (EtcdUnaryQueue); each watch and each lease
// keep-alive has a connection of its own (EtcdStreamCall).
//
// Endpoints: "http://HOST:PORT" of the cluster's members. Requests go to
// one of them; one that cannot be reached (or answers 5xx) moves every later
// call to the next. An empty or malformed list makes every call fail with
// kCoordinationUnavailable saying so.
//
// Threading: as KvStore (kv_store.h). Destroying the store drops pending
// calls without completing them; a WatchHandle may outlive the store.
#pragma once

#include <asio/io_context.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cluster/etcd/etcd_session.h"
#include "cluster/kv_store.h"

namespace spillway::broker::cluster::etcd {

class EtcdUnaryQueue;
class EtcdStreamCall;

class EtcdKvStore final : public KvStore {
 public:
  EtcdKvStore(asio::io_context& io, std::vector<std::string> endpoints, EtcdOptions options = {});
  ~EtcdKvStore() override;
  EtcdKvStore(const EtcdKvStore&) = delete;
  EtcdKvStore& operator=(const EtcdKvStore&) = delete;

  void range(std::string key, bool prefix, Callback<RangeResult> done) override;
  void txn(std::vector<Compare> compares, std::vector<TxnOp> success, std::vector<TxnOp> failure,
           Callback<TxnResult> done) override;
  void lease_grant(int64_t ttl_ms, Callback<int64_t> done) override;
  void lease_keep_alive(int64_t lease, Callback<int64_t> done) override;
  // true when revoked, false when etcd no longer knew the lease.
  void lease_revoke(int64_t lease, Callback<bool> done) override;
  std::unique_ptr<WatchHandle> watch(std::string key, bool prefix, int64_t start_revision,
                                     std::function<void(Result<WatchBatch>)> on_events) override;

  // Not part of KvStore (the broker never compacts; etcd's own
  // --auto-compaction does): drops the history before `revision`. The
  // store's revision when done. For tests and tools.
  void compact(int64_t revision, Callback<int64_t> done);

  // The endpoint calls go to now (the last one that answered).
  const std::string& current_endpoint() const;

 private:
  std::shared_ptr<EtcdSession> session_;
  std::shared_ptr<EtcdUnaryQueue> unary_;
  // Keep-alives in flight, cancelled with the store.
  std::vector<std::weak_ptr<EtcdStreamCall>> keep_alives_;
};

}  // namespace spillway::broker::cluster::etcd
