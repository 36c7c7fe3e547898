// ReplicaManager.
#include "replica_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>

#include "core/task_pool.h"

namespace spillway::broker::replication {

namespace {

bool contains(const std::vector<BrokerId>& ids, BrokerId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The local topic's settings from the cluster's (unset ones: this broker's
// defaults, as for any create).
CreateTopicSpec spec_for(const cluster::TopicAssignment& topic) {
  CreateTopicSpec spec;
  spec.name = topic.name;
  spec.partitions = static_cast<int32_t>(topic.replicas.size());
  spec.flush_policy = topic.settings.flush_policy;
  spec.retention_bytes = topic.settings.retention_bytes;
  spec.retention_ms = topic.settings.retention_ms;
  spec.segment_bytes = topic.settings.segment_bytes;
  return spec;
}

}  // namespace

ReplicaManager::ReplicaManager(const BrokerConfig& config, TopicRegistry& topics,
                               storage::FileSystem& fs, cluster::ClusterMember& member,
                               ReplicaFetcher& fetcher, asio::io_context& cluster_thread)
    : config_(config),
      topics_(topics),
      fs_(fs),
      member_(member),
      fetcher_(fetcher),
      cluster_thread_(cluster_thread),
      self_(static_cast<BrokerId>(config.node_id)) {}

std::string ReplicaManager::incarnation_path(const std::string& topic) const {
  return config_.data_dir + "/cluster/incarnations/" + topic;
}

int64_t ReplicaManager::stored_incarnation(const std::string& topic) const {
  auto cached = incarnations_.find(topic);
  if (cached != incarnations_.end()) return cached->second;
  int64_t value = 0;
  Result<std::string> text = fs_.read_file(incarnation_path(topic));
  if (text.ok()) {
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || value <= 0) value = 0;
  }
  incarnations_.emplace(topic, value);
  return value;
}

Status ReplicaManager::store_incarnation(const std::string& topic, int64_t revision) {
  const std::string dir = config_.data_dir + "/cluster/incarnations";
  if (Status st = fs_.create_dirs(dir); !st.ok()) return st;
  Status st =
      storage::write_file_atomically(fs_, incarnation_path(topic), std::to_string(revision));
  incarnations_.erase(topic);  // read again: what the file now says
  return st;
}

void ReplicaManager::forget_incarnation(const std::string& topic) {
  incarnations_.erase(topic);
  if (Status st = fs_.remove(incarnation_path(topic)); !st.ok()) {
    spdlog::warn("cluster: cannot remove the record of topic {}: {}", topic, st.message());
  }
}

void ReplicaManager::on_fenced() {
  spdlog::warn("cluster: this broker's lease is lost; it stops leading every partition");
  for (const std::shared_ptr<Topic>& topic : topics_.snapshot()) {
    for (const std::shared_ptr<Partition>& p : topic->partitions) {
      if (!p) continue;
      fetcher_.remove_partition(p->topic(), p->index());
      post_task(p->owner(), [p] { p->become_none(); });
    }
  }
  applied_.clear();
}

void ReplicaManager::on_snapshot(cluster::SnapshotPtr snapshot) {
  sync_topics(*snapshot);
  std::map<std::string, std::shared_ptr<Topic>, std::less<>> local;
  for (std::shared_ptr<Topic>& topic : topics_.snapshot()) local.emplace(topic->name, topic);
  for (const auto& [name, topic] : snapshot->topics) {
    auto it = local.find(name);
    if (it == local.end() || !it->second->offline.ok()) continue;
    if (stored_incarnation(name) != topic.create_revision) continue;
    const std::vector<std::shared_ptr<Partition>>& partitions = it->second->partitions;
    for (size_t i = 0; i < partitions.size() && i < topic.replicas.size(); ++i) {
      if (partitions[i]) apply_partition(*snapshot, topic, static_cast<int32_t>(i), partitions[i]);
    }
  }
}

void ReplicaManager::sync_topics(const cluster::ClusterSnapshot& snapshot) {
  std::map<std::string, std::shared_ptr<Topic>, std::less<>> local;
  for (std::shared_ptr<Topic>& topic : topics_.snapshot()) local.emplace(topic->name, topic);

  // Local topics the cluster deleted (or replaced by a new incarnation).
  for (const auto& [name, topic] : local) {
    const int64_t incarnation = stored_incarnation(name);
    if (incarnation == 0) continue;  // not a cluster topic: left alone
    auto it = snapshot.topics.find(name);
    if (it != snapshot.topics.end() && it->second.create_revision == incarnation) continue;
    spdlog::info("cluster: topic {} (incarnation {}) is gone from the cluster; deleting it here",
                 name, incarnation);
    for (const std::shared_ptr<Partition>& p : topic->partitions) {
      if (p) fetcher_.remove_partition(p->topic(), p->index());
    }
    for (auto a = applied_.lower_bound(cluster::PartitionKey{name, 0});
         a != applied_.end() && a->first.topic == name;) {
      a = applied_.erase(a);
    }
    Status st = topics_.remove(name, cluster_thread_.get_executor(), [name](Status done) {
      if (!done.ok()) spdlog::warn("cluster: deleting topic {}: {}", name, done.message());
    });
    if (!st.ok() && st.code() != ErrorCode::kUnknownTopic) {
      spdlog::error("cluster: cannot delete topic {}: {}", name, st.message());
      continue;
    }
    forget_incarnation(name);
  }

  // Topics the cluster has and this broker does not (yet).
  std::set<std::string> present;
  for (const std::shared_ptr<Topic>& topic : topics_.snapshot()) present.insert(topic->name);
  for (const auto& [name, topic] : snapshot.topics) {
    if (present.count(name) != 0 || topic.replicas.empty()) continue;
    Result<std::shared_ptr<Topic>> created =
        topics_.create(spec_for(topic), cluster_thread_.get_executor(), [name](Status st) {
          if (!st.ok()) spdlog::warn("cluster: creating topic {}: {}", name, st.message());
        });
    if (!created.ok()) {
      spdlog::error("cluster: cannot create topic {} here: {}", name, created.status().message());
      continue;
    }
    if (Status st = store_incarnation(name, topic.create_revision); !st.ok()) {
      spdlog::error("cluster: cannot record topic {}: {}", name, st.message());
      continue;
    }
    spdlog::info("cluster: topic {} ({} partition(s)) created here", name, topic.replicas.size());
  }
}

void ReplicaManager::apply_partition(const cluster::ClusterSnapshot& snapshot,
                                     const cluster::TopicAssignment& topic, int32_t index,
                                     const std::shared_ptr<Partition>& partition) {
  const cluster::PartitionKey key{topic.name, index};
  const cluster::PartitionState* state = snapshot.partition(topic.name, index);
  const std::vector<BrokerId>& replicas = topic.replicas[static_cast<size_t>(index)];
  // A broker whose registration is not in the snapshot (its lease is gone)
  // leads and follows nothing until it is registered again.
  auto self = snapshot.brokers.find(self_);
  const bool registered = self != snapshot.brokers.end() && member_.broker_epoch() != 0 &&
                          self->second.epoch == member_.broker_epoch();
  Role role = Role::kNone;
  const cluster::BrokerInfo* leader_info = nullptr;
  if (registered && state != nullptr) {
    if (state->leader == self_) {
      role = Role::kLeader;
    } else if (state->leader != kNoBroker && contains(replicas, self_)) {
      auto leader = snapshot.brokers.find(state->leader);
      if (leader != snapshot.brokers.end()) {
        role = Role::kFollower;
        leader_info = &leader->second;
      }
    }
  }
  // Safe to throw a damaged copy away only while it is out of the ISR: then
  // no election picks it (unclean election aside) and the ISR takes it back
  // only after it fetched up to the high watermark again. A corrupt replica
  // does not fetch, so its leader shrinks it out. Posted after the role, so
  // the partition is a follower when it runs.
  auto refetch_if_damaged = [&] {
    if (role == Role::kFollower && partition->corrupt() && !contains(state->isr, self_)) {
      post_task(partition->owner(), [partition] { partition->discard_damaged_copy(); });
    }
  };
  Applied& applied = applied_[key];
  const int32_t epoch = state ? state->leader_epoch : -1;
  const BrokerId leader = state ? state->leader : kNoBroker;
  std::vector<BrokerId> registered_replicas;
  if (role == Role::kLeader) {
    for (BrokerId id : replicas) {
      if (snapshot.brokers.count(id) != 0) registered_replicas.push_back(id);
    }
  }
  auto leader_role = [&] {
    LeaderRole lead;
    lead.state = *state;
    lead.replicas = replicas;
    lead.registered = registered_replicas;
    lead.min_insync_replicas = topic.settings.min_insync_replicas > 0
                                   ? topic.settings.min_insync_replicas
                                   : static_cast<int32_t>(config_.cluster_min_insync_replicas);
    lead.replica_lag_time_max_ms = config_.cluster_replica_lag_time_max_ms;
    return lead;
  };
  if (applied.role == role && applied.leader_epoch == epoch && applied.leader == leader) {
    if (role == Role::kLeader && (state->mod_revision != applied.mod_revision ||
                                  registered_replicas != applied.registered)) {
      // The same term: the stored ISR or the registered brokers moved.
      applied.mod_revision = state->mod_revision;
      applied.registered = registered_replicas;
      post_task(partition->owner(), [partition, lead = leader_role()]() mutable {
        partition->become_leader(std::move(lead));
      });
    }
    refetch_if_damaged();
    return;
  }
  applied = Applied{.role = role,
                    .leader = leader,
                    .leader_epoch = epoch,
                    .mod_revision = state ? state->mod_revision : 0,
                    .registered = registered_replicas};
  switch (role) {
    case Role::kLeader: {
      fetcher_.remove_partition(topic.name, PartitionId(index));
      LeaderRole lead = leader_role();
      std::weak_ptr<Partition> weak = partition;
      IsrWriter writer = [this, weak](const cluster::PartitionKey& k,
                                      const cluster::PartitionState& expected,
                                      std::vector<BrokerId> isr) {
        asio::post(cluster_thread_, [this, k, expected, isr = std::move(isr), weak]() mutable {
          write_isr(k, expected, std::move(isr), weak);
        });
      };
      spdlog::info("cluster: leading {}-{} in epoch {} (ISR {} of {} replica(s))", topic.name,
                   index, epoch, state->isr.size(), replicas.size());
      post_task(partition->owner(),
                [partition, lead = std::move(lead), writer = std::move(writer)]() mutable {
                  partition->set_isr_writer(std::move(writer));
                  partition->become_leader(std::move(lead));
                });
      break;
    }
    case Role::kFollower: {
      spdlog::info("cluster: following broker {} for {}-{} in epoch {}", leader, topic.name, index,
                   epoch);
      post_task(partition->owner(), [partition, f = FollowerRole{leader, LeaderEpoch(epoch)}] {
        partition->become_follower(f);
      });
      fetcher_.add_partition(partition, leader, leader_info->native_address, LeaderEpoch(epoch));
      refetch_if_damaged();
      break;
    }
    case Role::kNone:
    case Role::kStandalone:
      fetcher_.remove_partition(topic.name, PartitionId(index));
      post_task(partition->owner(), [partition] { partition->become_none(); });
      break;
  }
}

void ReplicaManager::write_isr(const cluster::PartitionKey& key,
                               const cluster::PartitionState& expected, std::vector<BrokerId> isr,
                               std::weak_ptr<Partition> partition) {
  member_.alter_isr(key, expected, std::move(isr),
                    [key, partition](Result<cluster::PartitionState> stored) {
                      if (!stored.ok()) {
                        // The state changed meanwhile: the next snapshot
                        // carries it to the partition.
                        spdlog::info("cluster: ISR change of {}-{} not stored: {}", key.topic,
                                     key.partition, stored.status().message());
                        return;
                      }
                      if (std::shared_ptr<Partition> p = partition.lock()) {
                        post_task(p->owner(), [p, s = *stored] { p->isr_changed(s); });
                      }
                    });
}

}  // namespace spillway::broker::replication
