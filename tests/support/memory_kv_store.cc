#include "memory_kv_store.h"

#include <algorithm>
#include <utility>

namespace spillway::testing {

using broker::cluster::Compare;
using broker::cluster::KeyValue;
using broker::cluster::RangeResult;
using broker::cluster::TxnOp;
using broker::cluster::TxnResult;
using broker::cluster::WatchBatch;
using broker::cluster::WatchEvent;
using broker::cluster::WatchHandle;

bool MemoryEtcd::matches(const std::string& key, const std::string& want, bool prefix) {
  return prefix ? key.compare(0, want.size(), want) == 0 : key == want;
}

const KeyValue* MemoryEtcd::get(const std::string& key) const {
  auto it = kvs_.find(key);
  return it == kvs_.end() ? nullptr : &it->second;
}

int64_t MemoryEtcd::lease_of(const std::string& key) const {
  const KeyValue* kv = get(key);
  return kv ? kv->lease : 0;
}

bool MemoryEtcd::holds(const Compare& c) const {
  const KeyValue* kv = get(c.key);
  if (c.target == Compare::Target::kValue) {
    // etcd: a value compare against an absent key fails.
    if (!kv) return false;
    const int cmp = kv->value.compare(c.value);
    switch (c.op) {
      case Compare::Op::kEqual: return cmp == 0;
      case Compare::Op::kNotEqual: return cmp != 0;
      case Compare::Op::kLess: return cmp < 0;
      case Compare::Op::kGreater: return cmp > 0;
    }
    return false;
  }
  int64_t have = 0;
  if (kv) {
    switch (c.target) {
      case Compare::Target::kCreateRevision: have = kv->create_revision; break;
      case Compare::Target::kModRevision: have = kv->mod_revision; break;
      case Compare::Target::kVersion: have = kv->version; break;
      case Compare::Target::kValue: break;
    }
  }
  switch (c.op) {
    case Compare::Op::kEqual: return have == c.number;
    case Compare::Op::kNotEqual: return have != c.number;
    case Compare::Op::kLess: return have < c.number;
    case Compare::Op::kGreater: return have > c.number;
  }
  return false;
}

Status MemoryEtcd::put_at(const std::string& key, const std::string& value, int64_t lease,
                          int64_t rev, std::vector<WatchEvent>* out) {
  if (lease != 0 && !leases_.contains(lease)) {
    return Status(ErrorCode::kCoordinationUnavailable, "etcdserver: requested lease not found");
  }
  KeyValue& kv = kvs_[key];
  if (kv.create_revision == 0) {
    kv.key = key;
    kv.create_revision = rev;
  }
  if (kv.lease != 0 && kv.lease != lease) {
    auto old = leases_.find(kv.lease);
    if (old != leases_.end()) old->second.keys.erase(key);
  }
  kv.value = value;
  kv.mod_revision = rev;
  ++kv.version;
  kv.lease = lease;
  if (lease != 0) leases_[lease].keys.insert(key);
  out->push_back(WatchEvent{WatchEvent::Type::kPut, kv});
  return Status::Ok();
}

void MemoryEtcd::delete_at(const std::string& key, int64_t rev, std::vector<WatchEvent>* out) {
  auto it = kvs_.find(key);
  if (it == kvs_.end()) return;
  if (it->second.lease != 0) {
    auto l = leases_.find(it->second.lease);
    if (l != leases_.end()) l->second.keys.erase(key);
  }
  WatchEvent ev{WatchEvent::Type::kDelete, KeyValue{}};
  ev.kv.key = key;
  ev.kv.mod_revision = rev;
  out->push_back(std::move(ev));
  kvs_.erase(it);
}

void MemoryEtcd::publish(int64_t rev, std::vector<WatchEvent> events) {
  if (events.empty()) return;
  revision_ = rev;
  for (const WatchEvent& ev : events) history_.push_back(Recorded{rev, ev});
  for (Watcher& w : watchers_) {
    WatchBatch batch;
    batch.revision = rev;
    for (const WatchEvent& ev : events) {
      if (matches(ev.kv.key, w.key, w.prefix)) batch.events.push_back(ev);
    }
    if (!batch.events.empty()) deliver(w, std::move(batch));
  }
}

void MemoryEtcd::deliver(Watcher& w, Result<WatchBatch> batch) {
  asio::post(w.client->io_, [cb = w.on_events, alive = w.alive, b = std::move(batch)]() mutable {
    if (*alive) cb(std::move(b));
  });
}

void MemoryEtcd::end_watches_of(MemoryKvStore* client, ErrorCode code) {
  for (auto it = watchers_.begin(); it != watchers_.end();) {
    if (client == nullptr || it->client == client) {
      deliver(*it, Status(code, code == ErrorCode::kCompacted ? "etcdserver: mvcc: required revision has been compacted"
                                                            : "etcd unreachable"));
      // The error ends the watch: no event is routed to it after this.
      it = watchers_.erase(it);
    } else {
      ++it;
    }
  }
}

void MemoryEtcd::end_watches(ErrorCode code) { end_watches_of(nullptr, code); }

void MemoryEtcd::expire_lease(int64_t lease) {
  auto it = leases_.find(lease);
  if (it == leases_.end()) return;
  const std::set<std::string> keys = std::move(it->second.keys);
  leases_.erase(it);
  const int64_t rev = revision_ + 1;
  std::vector<WatchEvent> events;
  for (const std::string& k : keys) delete_at(k, rev, &events);
  publish(rev, std::move(events));
}

void MemoryEtcd::compact(int64_t revision) {
  compacted_ = std::max(compacted_, revision);
  std::erase_if(history_, [&](const Recorded& r) { return r.revision < compacted_; });
}

void MemoryEtcd::put(const std::string& key, const std::string& value) {
  std::vector<WatchEvent> events;
  const int64_t rev = revision_ + 1;
  (void)put_at(key, value, 0, rev, &events);
  publish(rev, std::move(events));
}

void MemoryEtcd::erase(const std::string& key) {
  std::vector<WatchEvent> events;
  const int64_t rev = revision_ + 1;
  delete_at(key, rev, &events);
  publish(rev, std::move(events));
}

// --- MemoryKvStore ---

MemoryKvStore::~MemoryKvStore() {
  std::erase_if(etcd_.watchers_, [this](const MemoryEtcd::Watcher& w) { return w.client == this; });
}

Status MemoryKvStore::unreachable() const {
  return Status(ErrorCode::kCoordinationUnavailable, "etcd unreachable (test partition)");
}

void MemoryKvStore::set_reachable(bool reachable) {
  reachable_ = reachable;
  if (!reachable) etcd_.end_watches_of(this, ErrorCode::kCoordinationUnavailable);
}

void MemoryKvStore::range(std::string key, bool prefix, Callback<RangeResult> done) {
  if (!reachable_) return answer<RangeResult>(std::move(done), unreachable());
  RangeResult r;
  r.revision = etcd_.revision_;
  for (auto it = etcd_.kvs_.lower_bound(key); it != etcd_.kvs_.end(); ++it) {
    if (!MemoryEtcd::matches(it->first, key, prefix)) break;
    r.kvs.push_back(it->second);
  }
  answer<RangeResult>(std::move(done), std::move(r));
}

void MemoryKvStore::txn(std::vector<Compare> compares, std::vector<TxnOp> success,
                        std::vector<TxnOp> failure, Callback<TxnResult> done) {
  if (!reachable_) return answer<TxnResult>(std::move(done), unreachable());
  TxnResult r;
  r.succeeded = std::all_of(compares.begin(), compares.end(),
                            [&](const Compare& c) { return etcd_.holds(c); });
  const std::vector<TxnOp>& ops = r.succeeded ? success : failure;
  // etcd checks every put's lease before it applies anything.
  for (const TxnOp& op : ops) {
    if (op.kind == TxnOp::Kind::kPut && op.lease != 0 && !etcd_.leases_.contains(op.lease)) {
      return answer<TxnResult>(std::move(done), Status(ErrorCode::kCoordinationUnavailable,
                                                       "etcdserver: requested lease not found"));
    }
  }
  const int64_t rev = etcd_.revision_ + 1;
  std::vector<WatchEvent> events;
  for (const TxnOp& op : ops) {
    switch (op.kind) {
      case TxnOp::Kind::kPut:
        (void)etcd_.put_at(op.key, op.value, op.lease, rev, &events);
        break;
      case TxnOp::Kind::kDelete: {
        std::vector<std::string> doomed;
        for (auto it = etcd_.kvs_.lower_bound(op.key); it != etcd_.kvs_.end(); ++it) {
          if (!MemoryEtcd::matches(it->first, op.key, op.prefix)) break;
          doomed.push_back(it->first);
        }
        for (const std::string& k : doomed) etcd_.delete_at(k, rev, &events);
        break;
      }
      case TxnOp::Kind::kRange: {
        std::vector<KeyValue> kvs;
        for (auto it = etcd_.kvs_.lower_bound(op.key); it != etcd_.kvs_.end(); ++it) {
          if (!MemoryEtcd::matches(it->first, op.key, op.prefix)) break;
          kvs.push_back(it->second);
        }
        r.ranges.push_back(std::move(kvs));
        break;
      }
    }
  }
  etcd_.publish(rev, std::move(events));
  r.revision = etcd_.revision_;
  answer<TxnResult>(std::move(done), std::move(r));
}

void MemoryKvStore::lease_grant(int64_t ttl_ms, Callback<int64_t> done) {
  if (!reachable_) return answer<int64_t>(std::move(done), unreachable());
  const int64_t id = etcd_.next_lease_++;
  etcd_.leases_[id].ttl_ms = std::max<int64_t>(1000, (ttl_ms + 999) / 1000 * 1000);
  answer<int64_t>(std::move(done), id);
}

void MemoryKvStore::lease_keep_alive(int64_t lease, Callback<int64_t> done) {
  if (!reachable_) return answer<int64_t>(std::move(done), unreachable());
  auto it = etcd_.leases_.find(lease);
  answer<int64_t>(std::move(done), it == etcd_.leases_.end() ? int64_t{0} : it->second.ttl_ms);
}

void MemoryKvStore::lease_revoke(int64_t lease, Callback<bool> done) {
  if (!reachable_) return answer<bool>(std::move(done), unreachable());
  const bool known = etcd_.leases_.contains(lease);
  etcd_.expire_lease(lease);
  answer<bool>(std::move(done), known);
}

namespace {
class MemoryWatchHandle : public WatchHandle {
 public:
  explicit MemoryWatchHandle(std::shared_ptr<bool> alive, std::function<void()> cancel)
      : alive_(std::move(alive)), cancel_(std::move(cancel)) {}
  ~MemoryWatchHandle() override {
    *alive_ = false;
    cancel_();
  }

 private:
  std::shared_ptr<bool> alive_;
  std::function<void()> cancel_;
};
}  // namespace

std::unique_ptr<WatchHandle> MemoryKvStore::watch(std::string key, bool prefix,
                                                  int64_t start_revision,
                                                  std::function<void(Result<WatchBatch>)> on_events) {
  auto alive = std::make_shared<bool>(true);
  MemoryEtcd::Watcher w{this, key, prefix, std::move(on_events), alive};
  auto cancel = [etcd = &etcd_, alive] {
    std::erase_if(etcd->watchers_, [&](const MemoryEtcd::Watcher& x) { return x.alive == alive; });
  };
  if (!reachable_) {
    etcd_.deliver(w, unreachable());
    return std::make_unique<MemoryWatchHandle>(alive, [] {});
  }
  if (start_revision > 0 && start_revision < etcd_.compacted_) {
    etcd_.deliver(w, Status(ErrorCode::kCompacted,
                            "etcdserver: mvcc: required revision has been compacted"));
    return std::make_unique<MemoryWatchHandle>(alive, [] {});
  }
  // The history from start_revision, one batch per revision, then live.
  if (start_revision > 0) {
    WatchBatch batch;
    for (const MemoryEtcd::Recorded& r : etcd_.history_) {
      if (r.revision < start_revision || !MemoryEtcd::matches(r.event.kv.key, key, prefix)) continue;
      if (!batch.events.empty() && batch.revision != r.revision) {
        etcd_.deliver(w, std::move(batch));
        batch = WatchBatch{};
      }
      batch.revision = r.revision;
      batch.events.push_back(r.event);
    }
    if (!batch.events.empty()) etcd_.deliver(w, std::move(batch));
  }
  etcd_.watchers_.push_back(std::move(w));
  return std::make_unique<MemoryWatchHandle>(alive, std::move(cancel));
}

}  // namespace spillway::testing
