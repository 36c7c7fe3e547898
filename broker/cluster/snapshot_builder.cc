#include "cluster/snapshot_builder.h"

#include <spdlog/spdlog.h>

namespace spillway::broker::cluster {

namespace {
void ignored(const KeyValue& kv, const Status& why) {
  spdlog::warn("cluster: ignoring {} (revision {}): {}", kv.key, kv.mod_revision, why.to_string());
}
}  // namespace

SnapshotPtr SnapshotBuilder::from_range(const RangeResult& listing) const {
  auto s = std::make_shared<ClusterSnapshot>();
  s->revision = listing.revision;
  for (const KeyValue& kv : listing.kvs) put(*s, kv);
  return s;
}

SnapshotPtr SnapshotBuilder::apply(const ClusterSnapshot& base, const WatchBatch& batch) const {
  auto s = std::make_shared<ClusterSnapshot>(base);
  for (const WatchEvent& ev : batch.events) {
    if (ev.type == WatchEvent::Type::kPut) {
      // A put replaces: drop what the key held, then decode the new value.
      erase(*s, ev.kv.key);
      put(*s, ev.kv);
    } else {
      erase(*s, ev.kv.key);
    }
  }
  s->revision = std::max(base.revision, batch.revision);
  return s;
}

void SnapshotBuilder::put(ClusterSnapshot& s, const KeyValue& kv) const {
  const ClusterKeys::Parsed k = keys_.parse(kv.key);
  switch (k.kind) {
    case ClusterKeys::Parsed::Kind::kUnknown:
      return;
    case ClusterKeys::Parsed::Kind::kBroker: {
      auto b = decode_broker(kv.value, k.broker, kv.create_revision);
      if (!b.ok()) return ignored(kv, b.status());
      s.brokers[k.broker] = std::move(*b);
      return;
    }
    case ClusterKeys::Parsed::Kind::kController: {
      auto id = decode_controller(kv.value);
      if (!id.ok()) return ignored(kv, id.status());
      s.controller = *id;
      s.controller_epoch = kv.create_revision;
      return;
    }
    case ClusterKeys::Parsed::Kind::kTopic: {
      auto t = decode_topic(kv.value, k.topic);
      if (!t.ok()) return ignored(kv, t.status());
      t->mod_revision = kv.mod_revision;
      t->create_revision = kv.create_revision;
      s.topics[k.topic] = std::move(*t);
      return;
    }
    case ClusterKeys::Parsed::Kind::kPartition: {
      auto p = decode_partition(kv.value);
      if (!p.ok()) return ignored(kv, p.status());
      p->mod_revision = kv.mod_revision;
      s.partitions[PartitionKey{k.topic, k.partition}] = std::move(*p);
      return;
    }
  }
}

void SnapshotBuilder::erase(ClusterSnapshot& s, const std::string& key) const {
  const ClusterKeys::Parsed k = keys_.parse(key);
  switch (k.kind) {
    case ClusterKeys::Parsed::Kind::kUnknown:
      return;
    case ClusterKeys::Parsed::Kind::kBroker:
      s.brokers.erase(k.broker);
      return;
    case ClusterKeys::Parsed::Kind::kController:
      s.controller = kNoBroker;
      s.controller_epoch = 0;
      return;
    case ClusterKeys::Parsed::Kind::kTopic: {
      auto it = s.topics.find(k.topic);
      if (it != s.topics.end()) s.topics.erase(it);
      return;
    }
    case ClusterKeys::Parsed::Kind::kPartition:
      s.partitions.erase(PartitionKey{k.topic, k.partition});
      return;
  }
}

}  // namespace spillway::broker::cluster
