// KvStore: the part of etcd v3 the cluster layer uses (range, txn, leases,
// watch), asynchronous. EtcdKvStore (etcd/etcd_kv_store.h) speaks etcd's
// HTTP/JSON gateway; tests/support/memory_kv_store.h is an in-memory model
// with the same semantics (revisions, leases that tests expire by hand,
// watches, compaction) for deterministic tests.
//
// Threading: every call is made on, and every callback runs on, the
// store's executor (one io_context thread: the broker's cluster thread).
// Callbacks are never run inline from the call that registers them.
//
// Errors: kCoordinationUnavailable when etcd cannot be reached or answers
// an error (the message says which); kCompacted for a watch whose
// start_revision was compacted away (re-list with range(), then watch from
// the revision it returned + 1).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::broker::cluster {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;
};

// One comparison of a transaction (etcd's Compare). A key that does not
// exist has create_revision = mod_revision = version = 0.
struct Compare {
  enum class Target { kCreateRevision, kModRevision, kVersion, kValue };
  enum class Op { kEqual, kNotEqual, kLess, kGreater };
  std::string key;
  Target target = Target::kCreateRevision;
  Op op = Op::kEqual;
  int64_t number = 0;  // every target but kValue
  std::string value;   // kValue
};

// One operation of a transaction branch.
struct TxnOp {
  enum class Kind { kPut, kDelete, kRange };
  Kind kind = Kind::kPut;
  std::string key;
  std::string value;    // kPut
  int64_t lease = 0;    // kPut: attach to this lease (0 = none)
  bool prefix = false;  // kDelete, kRange: every key starting with `key`
};

struct RangeResult {
  std::vector<KeyValue> kvs;
  int64_t revision = 0;  // the store's revision the read saw
};

struct TxnResult {
  bool succeeded = false;  // the compares held: the success branch ran
  int64_t revision = 0;    // the store's revision after the transaction
  // One entry per kRange op of the branch that ran, in order.
  std::vector<std::vector<KeyValue>> ranges;
};

struct WatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;  // for kDelete: key and mod_revision (the delete's revision)
};

// Events of one revision or more, in revision order.
struct WatchBatch {
  std::vector<WatchEvent> events;
  int64_t revision = 0;  // the store's revision when sent (>= every event's)
};

// Cancels the watch when destroyed (no callback after that).
class WatchHandle {
 public:
  virtual ~WatchHandle() = default;
};

class KvStore {
 public:
  template <typename T>
  using Callback = std::function<void(Result<T>)>;

  virtual ~KvStore() = default;

  // Keys equal to `key`, or starting with it when `prefix`, in key order.
  virtual void range(std::string key, bool prefix, Callback<RangeResult> done) = 0;

  // If every compare holds, runs `success`, else `failure`, atomically.
  virtual void txn(std::vector<Compare> compares, std::vector<TxnOp> success,
                   std::vector<TxnOp> failure, Callback<TxnResult> done) = 0;

  // A new lease of `ttl_ms` (rounded up to whole seconds, at least 1); its id.
  virtual void lease_grant(int64_t ttl_ms, Callback<int64_t> done) = 0;
  // Renews `lease` once; the remaining TTL in ms, 0 when it has expired
  // (its keys are gone: register again with a new lease).
  virtual void lease_keep_alive(int64_t lease, Callback<int64_t> done) = 0;
  // Ends `lease` now; its keys are deleted.
  virtual void lease_revoke(int64_t lease, Callback<bool> done) = 0;

  // Every change to `key` (or keys under it when `prefix`) from
  // `start_revision` on, delivered in order through `on_events`, until the
  // handle is destroyed. An error (kCompacted, kCoordinationUnavailable)
  // ends the watch: the caller re-lists and watches again. A watch
  // survives no reconnection on its own, so that a missed event can never
  // pass unnoticed.
  virtual std::unique_ptr<WatchHandle> watch(std::string key, bool prefix,
                                             int64_t start_revision,
                                             std::function<void(Result<WatchBatch>)> on_events) = 0;
};

}  // namespace spillway::broker::cluster
