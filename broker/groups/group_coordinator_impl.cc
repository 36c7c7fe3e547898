// GroupCoordinatorImpl: routing to owner cores, the deadline ticks, and
// persistence of settled groups.
#include "groups/group_coordinator_impl.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "core/task_pool.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::groups {

namespace {

// Posts done(value) to `executor`.
template <typename T>
void reply(const asio::any_io_executor& executor, const std::function<void(T)>& done, T value) {
  asio::any_io_executor target = executor;
  post_task(target, [done, value = std::move(value)]() mutable { done(std::move(value)); });
}

// Answers that cross back to the caller's executor, as the callbacks a
// Group keeps.
template <typename T>
std::function<void(T)> replier(asio::any_io_executor executor, std::function<void(T)> done) {
  return [executor = std::move(executor), done = std::move(done)](T value) {
    reply(executor, done, std::move(value));
  };
}

std::chrono::milliseconds tick_period(const GroupLimits& limits) {
  return std::clamp(limits.min_session_timeout / 10, std::chrono::milliseconds(10),
                    std::chrono::milliseconds(100));
}

// A group that holds nothing worth keeping: never rebalanced, no members,
// no member ids handed out.
bool unused(const Group& g) {
  return g.state() == GroupState::kEmpty && g.generation() == 0 && g.member_count() == 0 &&
         !g.has_pending();
}

// Counted against GroupLimits::max_groups: members, or member ids handed
// out (MEMBER_ID_REQUIRED) that may still join.
bool active(const Group& g) {
  return g.member_count() > 0 || g.has_pending();
}

}  // namespace

Result<std::unique_ptr<GroupCoordinator>> GroupCoordinator::open(CoreSet& cores,
                                                                 OffsetStore& offsets,
                                                                 std::string data_dir,
                                                                 GroupLimits limits) {
  auto coordinator =
      std::make_unique<GroupCoordinatorImpl>(cores, offsets, std::move(data_dir), limits);
  SPILLWAY_RETURN_IF_ERROR(coordinator->start());
  return std::unique_ptr<GroupCoordinator>(std::move(coordinator));
}

GroupCoordinatorImpl::GroupCoordinatorImpl(CoreSet& cores, OffsetStore& offsets,
                                           std::string data_dir, GroupLimits limits)
    : cores_(cores),
      offsets_(offsets),
      store_(std::make_shared<GroupStore>(storage::posix_file_system(), data_dir)),
      limits_(limits) {
  for (size_t i = 0; i < cores_.size(); ++i) shards_.push_back(std::make_unique<Shard>());
}

GroupCoordinatorImpl::~GroupCoordinatorImpl() = default;

Status GroupCoordinatorImpl::start() {
  Result<std::vector<StoredGroup>> stored = store_->load_all(limits_);
  if (!stored.ok()) return stored.status();
  const Clock::time_point now = Clock::now();
  for (const StoredGroup& s : *stored) {
    auto group = std::make_unique<Group>(s, limits_, now);
    if (active(*group)) ++active_groups_;
    shards_[owner_core(s.group_id)]->groups.emplace(s.group_id, std::move(group));
  }
  if (!stored->empty()) spdlog::info("loaded {} consumer group(s)", stored->size());
  cores_.every(tick_period(limits_), [this](size_t core) { tick(core); });
  return Status::Ok();
}

size_t GroupCoordinatorImpl::owner_core(std::string_view group_id) const {
  return std::hash<std::string_view>()(group_id) % shards_.size();
}

template <typename F>
void GroupCoordinatorImpl::on_owner(std::string_view group_id, F&& fn) {
  post_task(cores_.context(owner_core(group_id)), std::forward<F>(fn));
}

Group* GroupCoordinatorImpl::find(size_t core, std::string_view group_id) {
  check_on_core(core);
  auto& groups = shards_[core]->groups;
  auto it = groups.find(group_id);
  return it == groups.end() ? nullptr : it->second.get();
}

void GroupCoordinatorImpl::after_change(size_t core, Group& group, bool was_active) {
  const bool now_active = active(group);
  if (now_active && !was_active) ++active_groups_;
  if (!now_active && was_active) --active_groups_;
  if (group.take_settled()) {
    std::string name = group.name();
    std::string bytes = encode_group(group.snapshot());
    post_task(cores_.sync_context(core),
              [store = store_, name = std::move(name), bytes = std::move(bytes)] {
                if (Status st = store->save(name, bytes); !st.ok()) {
                  spdlog::error("group {}: could not persist its metadata: {}", name, st.message());
                }
              });
  }
  if (unused(group)) shards_[core]->groups.erase(group.name());
}

void GroupCoordinatorImpl::tick(size_t core) {
  const Clock::time_point now = Clock::now();
  auto& groups = shards_[core]->groups;
  for (auto it = groups.begin(); it != groups.end();) {
    Group& g = *(it++)->second;  // advanced first: after_change may erase g
    const bool had = active(g);
    g.tick(now);
    after_change(core, g, had);
  }
}

void GroupCoordinatorImpl::join(JoinRequest request, asio::any_io_executor reply_on,
                                std::function<void(JoinResult)> done) {
  const std::string id = request.group_id;
  on_owner(id, [this, request = std::move(request), reply_on = std::move(reply_on),
                done = std::move(done)]() mutable {
    const size_t core = CoreSet::current();
    auto answer = replier<JoinResult>(std::move(reply_on), std::move(done));
    if (Status st = OffsetStore::validate_group(request.group_id); !st.ok()) {
      answer(JoinResult{.status = std::move(st)});
      return;
    }
    Group* g = find(core, request.group_id);
    if ((g == nullptr || !active(*g)) && active_groups_.load() >= limits_.max_groups) {
      answer(JoinResult{.status = Status(ErrorCode::kGroupFull,
                                         "the broker has " + std::to_string(limits_.max_groups) +
                                             " groups with members (max_groups)")});
      return;
    }
    if (g == nullptr) {
      auto group = std::make_unique<Group>(request.group_id, limits_);
      g = group.get();
      shards_[core]->groups.emplace(request.group_id, std::move(group));
    }
    const bool had = active(*g);
    g->join(std::move(request), Clock::now(), std::move(answer));
    after_change(core, *g, had);
  });
}

void GroupCoordinatorImpl::sync(SyncRequest request, asio::any_io_executor reply_on,
                                std::function<void(SyncResult)> done) {
  const std::string id = request.group_id;
  on_owner(id, [this, request = std::move(request), reply_on = std::move(reply_on),
                done = std::move(done)]() mutable {
    const size_t core = CoreSet::current();
    auto answer = replier<SyncResult>(std::move(reply_on), std::move(done));
    Group* g = find(core, request.group_id);
    if (g == nullptr) {
      answer(SyncResult{.status = Status(ErrorCode::kUnknownMember, "no such group")});
      return;
    }
    const bool had = active(*g);
    g->sync(std::move(request), Clock::now(), std::move(answer));
    after_change(core, *g, had);
  });
}

void GroupCoordinatorImpl::heartbeat(std::string group_id, std::string member_id,
                                     int32_t generation,
                                     std::optional<std::string> group_instance_id,
                                     asio::any_io_executor reply_on,
                                     std::function<void(Status)> done) {
  const std::string id = group_id;
  on_owner(id, [this, group_id = std::move(group_id), member_id = std::move(member_id), generation,
                instance = std::move(group_instance_id), reply_on = std::move(reply_on),
                done = std::move(done)]() mutable {
    const size_t core = CoreSet::current();
    Group* g = find(core, group_id);
    // Kafka answers a heartbeat for a group it does not have with
    // UNKNOWN_MEMBER_ID: the client rejoins.
    Status st = g == nullptr ? Status(ErrorCode::kUnknownMember, "no such group")
                             : g->heartbeat(member_id, generation, instance, Clock::now());
    reply(reply_on, done, std::move(st));
  });
}

void GroupCoordinatorImpl::leave(std::string group_id, std::vector<LeaveMember> members,
                                 asio::any_io_executor reply_on,
                                 std::function<void(LeaveResult)> done) {
  const std::string id = group_id;
  on_owner(id, [this, group_id = std::move(group_id), members = std::move(members),
                reply_on = std::move(reply_on), done = std::move(done)]() mutable {
    const size_t core = CoreSet::current();
    Group* g = find(core, group_id);
    LeaveResult result;
    if (g == nullptr) {
      result.status = Status::Ok();
      result.member_status.assign(members.size(),
                                  Status(ErrorCode::kUnknownMember, "no such group"));
    } else {
      const bool had = active(*g);
      result = g->leave(members, Clock::now());
      after_change(core, *g, had);
    }
    reply(reply_on, done, std::move(result));
  });
}

void GroupCoordinatorImpl::check_commit(std::string group_id, std::string member_id,
                                        int32_t generation,
                                        std::optional<std::string> group_instance_id,
                                        asio::any_io_executor reply_on,
                                        std::function<void(Status)> done) {
  const std::string id = group_id;
  on_owner(id, [this, group_id = std::move(group_id), member_id = std::move(member_id), generation,
                instance = std::move(group_instance_id), reply_on = std::move(reply_on),
                done = std::move(done)]() mutable {
    const size_t core = CoreSet::current();
    Group* g = find(core, group_id);
    Status st;
    if (g != nullptr) {
      st = g->check_commit(member_id, generation, instance, Clock::now());
    } else if (generation >= 0) {
      // As Kafka: a generation of a group this broker does not have.
      st = Status(ErrorCode::kIllegalGeneration,
                  "the group has no generation " + std::to_string(generation));
    }
    reply(reply_on, done, std::move(st));
  });
}

void GroupCoordinatorImpl::describe(std::string group_id, asio::any_io_executor reply_on,
                                    std::function<void(GroupDescription)> done) {
  const std::string id = group_id;
  on_owner(id, [this, group_id = std::move(group_id), reply_on = std::move(reply_on),
                done = std::move(done)]() mutable {
    Group* g = find(CoreSet::current(), group_id);
    GroupDescription d;
    if (g != nullptr) {
      d = g->describe();
    } else {
      d.group_id = group_id;
      if (offsets_.group_offsets(group_id).empty()) {
        d.status = Status(ErrorCode::kUnknownGroup, "no such group");
      } else {
        d.state = GroupState::kEmpty;  // offsets only: a "simple" group
      }
    }
    reply(reply_on, done, std::move(d));
  });
}

template <typename Row, typename RowFn, typename FinishFn>
void GroupCoordinatorImpl::gather(RowFn row, FinishFn finish) {
  struct Gathered {
    std::mutex mu;
    std::vector<Row> rows;
    size_t left = 0;
  };
  auto gathered = std::make_shared<Gathered>();
  gathered->left = shards_.size();
  for (size_t core = 0; core < shards_.size(); ++core) {
    post_task(cores_.context(core), [this, core, gathered, row, finish] {
      std::vector<Row> mine;
      for (const auto& [name, g] : shards_[core]->groups) mine.push_back(row(name, *g));
      std::lock_guard lock(gathered->mu);
      for (auto& r : mine) gathered->rows.push_back(std::move(r));
      if (--gathered->left == 0) finish(std::move(gathered->rows));
    });
  }
}

void GroupCoordinatorImpl::list(asio::any_io_executor reply_on,
                                std::function<void(std::vector<GroupListing>)> done) {
  gather<GroupListing>(
      [](const std::string& name, const Group& g) {
        return GroupListing{
            .group_id = name, .protocol_type = g.protocol_type(), .state = g.state()};
      },
      [this, reply_on, done](std::vector<GroupListing> all) {
        // Groups with committed offsets and no coordinator state: Empty.
        std::set<std::string> known;
        for (const auto& l : all) known.insert(l.group_id);
        for (std::string& name : offsets_.groups()) {
          if (!known.contains(name)) all.push_back({.group_id = std::move(name)});
        }
        std::sort(all.begin(), all.end(),
                  [](const auto& a, const auto& b) { return a.group_id < b.group_id; });
        reply(reply_on, done, std::move(all));
      });
}

void GroupCoordinatorImpl::remove(std::string group_id, asio::any_io_executor reply_on,
                                  std::function<void(Status)> done) {
  const std::string id = group_id;
  on_owner(id, [this, group_id = std::move(group_id), reply_on = std::move(reply_on),
                done = std::move(done)]() mutable {
    const size_t core = CoreSet::current();
    Group* g = find(core, group_id);
    if (g != nullptr && g->member_count() > 0) {
      reply(reply_on, done,
            Status(ErrorCode::kGroupNotEmpty, "group " + group_id + " has members"));
      return;
    }
    const bool had_group = g != nullptr;
    if (g != nullptr) {
      if (active(*g)) --active_groups_;  // member ids handed out only
      g->mark_dead();
      shards_[core]->groups.erase(group_id);
    }
    // The group's file and offsets go on the sync thread, after any write
    // of the group queued before.
    post_task(cores_.sync_context(core),
              [store = store_, &offsets = offsets_, had_group, group_id = std::move(group_id),
               reply_on = std::move(reply_on), done = std::move(done)]() mutable {
                Status st = store->remove(group_id);
                Result<bool> had_offsets = offsets.remove_group(group_id);
                if (st.ok() && !had_offsets.ok()) st = had_offsets.status();
                if (st.ok() && !had_group && !*had_offsets) {
                  st = Status(ErrorCode::kUnknownGroup, "no such group");
                }
                reply(reply_on, done, std::move(st));
              });
  });
}

void GroupCoordinatorImpl::stats(asio::any_io_executor reply_on,
                                 std::function<void(std::vector<GroupStats>)> done) {
  gather<GroupStats>(
      [](const std::string& name, const Group& g) {
        return GroupStats{.group_id = name,
                          .state = g.state(),
                          .generation = g.generation(),
                          .members = g.member_count(),
                          .rebalances = g.rebalances()};
      },
      [reply_on, done](std::vector<GroupStats> all) {
        std::sort(all.begin(), all.end(),
                  [](const auto& a, const auto& b) { return a.group_id < b.group_id; });
        reply(reply_on, done, std::move(all));
      });
}

void GroupCoordinatorImpl::stop_core(size_t core) {
  check_on_core(core);
  for (auto& [name, g] : shards_[core]->groups)
    g->answer_parked(Status(ErrorCode::kShuttingDown, "the broker is stopping"));
}

}  // namespace spillway::broker::groups
