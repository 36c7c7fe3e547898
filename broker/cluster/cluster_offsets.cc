// ClusterOffsets: load, compare-and-swap, and one commit per group at a time.
#include "cluster/cluster_offsets.h"

#include <spdlog/spdlog.h>

namespace spillway::broker::cluster {

namespace {

// Groups tracked at once: a client may ask for the offsets of any number of
// group names; idle ones are dropped past this (and loaded again if asked).
constexpr size_t kMaxTrackedGroups = 100'000;

}  // namespace

void ClusterOffsets::check_membership() {
  SnapshotPtr snapshot = admin_.snapshot();
  Membership now;
  if (snapshot) {
    now.reserve(snapshot->brokers.size());
    for (const auto& [id, info] : snapshot->brokers) now.emplace_back(id, info.epoch);
  }
  if (now == membership_) return;
  membership_ = std::move(now);
  ++generation_;
  // Any group may have had another coordinator meanwhile: load again.
  for (auto& [name, state] : groups_) state.loaded = false;
}

bool ClusterOffsets::ready(const std::string& group, asio::any_io_executor executor) {
  uint64_t generation = 0;
  {
    std::lock_guard lock(mu_);
    check_membership();
    if (groups_.size() >= kMaxTrackedGroups && groups_.find(group) == groups_.end()) {
      std::erase_if(groups_, [](const auto& kv) {
        return !kv.second.loading && !kv.second.writing && kv.second.queue.empty();
      });
    }
    GroupState& state = groups_[group];
    if (state.loaded) return true;
    if (state.loading) return false;
    state.loading = true;
    generation = generation_;
  }
  admin_.read_group_offsets(group, executor,
                            [this, group, generation](Result<ClusterAdmin::StoredOffsets> stored) {
                              if (!stored.ok()) {
                                spdlog::warn("cluster: cannot load the offsets of group {}: {}",
                                             group, stored.status().to_string());
                              } else {
                                std::vector<OffsetStore::Entry> entries;
                                entries.reserve(stored->offsets.size());
                                for (GroupOffset& o : stored->offsets) {
                                  entries.push_back({std::move(o.topic), o.partition, o.offset});
                                }
                                store_.adopt(group, entries);
                              }
                              std::lock_guard lock(mu_);
                              GroupState& state = groups_[group];
                              state.loading = false;
                              // A load that began before the brokers changed may be stale already.
                              if (stored.ok() && generation == generation_) {
                                state.loaded = true;
                                state.revision = stored->mod_revision;
                              }
                            });
  return false;
}

void ClusterOffsets::commit(std::string group, std::vector<OffsetStore::Entry> entries,
                            asio::any_io_executor executor, std::function<void(Status)> done) {
  bool start = false;
  {
    std::lock_guard lock(mu_);
    GroupState& state = groups_[group];
    state.queue.push_back({std::move(entries), std::move(executor), std::move(done)});
    if (!state.writing) {
      state.writing = true;
      start = true;
    }
  }
  if (start) write_next(group);
}

void ClusterOffsets::write_next(const std::string& group) {
  Pending p;
  int64_t expected = 0;
  bool loaded = false;
  {
    std::lock_guard lock(mu_);
    check_membership();
    GroupState& state = groups_[group];
    if (state.queue.empty()) {
      state.writing = false;
      return;
    }
    p = std::move(state.queue.front());
    state.queue.pop_front();
    expected = state.revision;
    loaded = state.loaded;
  }
  if (!loaded) {
    finish(group, p,
           Status(ErrorCode::kCoordinationUnavailable,
                  "the group's offsets are not loaded on this broker (yet)"));
    return;
  }
  // The group's offsets as this broker has them, with the commit applied.
  std::map<std::pair<std::string, int32_t>, int64_t> merged;
  for (OffsetStore::Entry& e : store_.group_offsets(group)) {
    merged[{std::move(e.topic), e.partition}] = e.offset;
  }
  for (const OffsetStore::Entry& e : p.entries) merged[{e.topic, e.partition}] = e.offset;
  std::vector<GroupOffset> all;
  all.reserve(merged.size());
  for (auto& [key, offset] : merged) all.push_back({key.first, key.second, offset});
  asio::any_io_executor executor = p.executor;
  admin_.write_group_offsets(
      group, expected, std::move(all), executor,
      [this, group, p = std::move(p)](Result<int64_t> written) mutable {
        if (!written.ok()) {
          finish(group, p, written.status());
          return;
        }
        if (*written == 0) {
          {
            std::lock_guard lock(mu_);
            groups_[group].loaded = false;
          }
          finish(group, p,
                 Status(ErrorCode::kNotLeaderOrFollower,
                        "another broker stored this group's offsets since: it coordinates the "
                        "group now"));
          return;
        }
        {
          std::lock_guard lock(mu_);
          groups_[group].revision = *written;
        }
        std::vector<OffsetStore::Entry> entries = std::move(p.entries);
        asio::any_io_executor ex = p.executor;
        store_.commit_async(group, std::move(entries), ex,
                            [this, group, p = std::move(p)](Status st) mutable {
                              finish(group, p, std::move(st));
                            });
      });
}

void ClusterOffsets::finish(const std::string& group, Pending& p, Status st) {
  p.done(std::move(st));
  write_next(group);
}

}  // namespace spillway::broker::cluster
