// An in-memory etcd for deterministic cluster tests: MemoryEtcd holds the
// data (one global revision, create/mod revision and version per key,
// leases, the event history for watches, compaction) and MemoryKvStore is
// one broker's client of it (the KvStore interface), with a switch that
// cuts that client off as a network partition would.
//
// Semantics follow etcd v3: an empty store is at revision 1; a write (put,
// delete of at least one key, a txn with writes, a lease revoke that
// deletes keys) takes the next revision; every key written by one txn gets
// the same revision. Leases never expire on their own: a test expires one
// with MemoryEtcd::expire_lease (its keys are deleted, as etcd does when a
// TTL runs out), so no test depends on timing.
//
// Threading: one thread. Every callback is posted on the client's
// io_context, never run inline; events of one watch arrive in revision
// order.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "asio/io_context.hpp"
#include "asio/post.hpp"
#include "cluster/kv_store.h"

namespace spillway::testing {

class MemoryKvStore;

class MemoryEtcd {
 public:
  MemoryEtcd() = default;
  MemoryEtcd(const MemoryEtcd&) = delete;
  MemoryEtcd& operator=(const MemoryEtcd&) = delete;

  int64_t revision() const { return revision_; }

  // What etcd does when `lease`'s TTL runs out: its keys are deleted (one
  // revision) and keep-alives of it answer 0.
  void expire_lease(int64_t lease);
  // The lease `key` is attached to; 0 when none or absent.
  int64_t lease_of(const std::string& key) const;
  // Forgets the history below `revision`: a watch that asks to start
  // there fails with kCompacted.
  void compact(int64_t revision);
  // Ends every open watch with `code` (etcd cancels a watcher that fell
  // behind a compaction with kCompacted).
  void end_watches(ErrorCode code);

  // Direct writes for tests (malformed values, hand-made states).
  void put(const std::string& key, const std::string& value);
  void erase(const std::string& key);
  const broker::cluster::KeyValue* get(const std::string& key) const;

 private:
  friend class MemoryKvStore;
  struct Lease {
    int64_t ttl_ms = 0;
    std::set<std::string> keys;
  };
  struct Watcher {
    MemoryKvStore* client = nullptr;
    std::string key;
    bool prefix = false;
    std::function<void(Result<broker::cluster::WatchBatch>)> on_events;
    std::shared_ptr<bool> alive;
  };
  struct Recorded {
    int64_t revision = 0;
    broker::cluster::WatchEvent event;
  };

  static bool matches(const std::string& key, const std::string& want, bool prefix);
  bool holds(const broker::cluster::Compare& c) const;
  // Applies one write at `rev`, recording its event in `out`.
  Status put_at(const std::string& key, const std::string& value, int64_t lease, int64_t rev,
                std::vector<broker::cluster::WatchEvent>* out);
  void delete_at(const std::string& key, int64_t rev,
                 std::vector<broker::cluster::WatchEvent>* out);
  // Records the events of one revision and delivers them to the watchers.
  void publish(int64_t rev, std::vector<broker::cluster::WatchEvent> events);
  void deliver(Watcher& w, Result<broker::cluster::WatchBatch> batch);
  void end_watches_of(MemoryKvStore* client, ErrorCode code);

  int64_t revision_ = 1;
  int64_t compacted_ = 0;
  int64_t next_lease_ = 0x1000;
  std::map<std::string, broker::cluster::KeyValue> kvs_;
  std::map<int64_t, Lease> leases_;
  std::vector<Recorded> history_;
  std::list<Watcher> watchers_;
};

class MemoryKvStore : public broker::cluster::KvStore {
 public:
  MemoryKvStore(asio::io_context& io, MemoryEtcd& etcd) : io_(io), etcd_(etcd) {}
  ~MemoryKvStore() override;

  // Cuts this client off (every call fails kCoordinationUnavailable, open
  // watches end with it) or reconnects it.
  void set_reachable(bool reachable);
  bool reachable() const { return reachable_; }

  void range(std::string key, bool prefix, Callback<broker::cluster::RangeResult> done) override;
  void txn(std::vector<broker::cluster::Compare> compares,
           std::vector<broker::cluster::TxnOp> success,
           std::vector<broker::cluster::TxnOp> failure,
           Callback<broker::cluster::TxnResult> done) override;
  void lease_grant(int64_t ttl_ms, Callback<int64_t> done) override;
  void lease_keep_alive(int64_t lease, Callback<int64_t> done) override;
  void lease_revoke(int64_t lease, Callback<bool> done) override;
  std::unique_ptr<broker::cluster::WatchHandle> watch(
      std::string key, bool prefix, int64_t start_revision,
      std::function<void(Result<broker::cluster::WatchBatch>)> on_events) override;

 private:
  friend class MemoryEtcd;
  template <typename T>
  void answer(Callback<T> done, Result<T> r) {
    asio::post(io_, [done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
  }
  Status unreachable() const;

  asio::io_context& io_;
  MemoryEtcd& etcd_;
  bool reachable_ = true;
};

}  // namespace spillway::testing
