// GroupCoordinatorImpl: the GroupCoordinator over Group state machines,
// sharded by owner core (group_coordinator.h). Each core holds the groups it
// owns in its Shard, touched only on that core; a periodic task on every
// core (CoreSet::every, so it ends with the core) applies the deadlines of
// its groups: member sessions, rebalance timeouts and the initial rebalance
// delay. Deadlines are checked every `tick` (a tenth of the minimum session
// timeout, 10-100 ms), so a session expires at most one tick late.
//
// Persistence: when a group settles, its snapshot is encoded on the owner
// core and written on that core's sync thread (in order, FIFO), so the
// cores never wait on the disk. Those writes hold the GroupStore (not the
// coordinator); the OffsetStore must outlive the sync threads' work.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/offset_store.h"
#include "groups/group.h"
#include "groups/group_coordinator.h"
#include "groups/group_store.h"
#include "runtime/core_set.h"

namespace spillway::broker::groups {

// Destroy it only once the cores have stopped running (their periodic
// tasks and queued calls hold `this`), as main() does.
class GroupCoordinatorImpl final : public GroupCoordinator {
 public:
  GroupCoordinatorImpl(CoreSet& cores, OffsetStore& offsets, std::string data_dir,
                       GroupLimits limits);
  ~GroupCoordinatorImpl() override;

  // Loads the stored groups and starts the periodic deadline checks.
  Status start();

  size_t owner_core(std::string_view group_id) const override;
  void join(JoinRequest request, asio::any_io_executor reply_on,
            std::function<void(JoinResult)> done) override;
  void sync(SyncRequest request, asio::any_io_executor reply_on,
            std::function<void(SyncResult)> done) override;
  void heartbeat(std::string group_id, std::string member_id, int32_t generation,
                 std::optional<std::string> group_instance_id, asio::any_io_executor reply_on,
                 std::function<void(Status)> done) override;
  void leave(std::string group_id, std::vector<LeaveMember> members, asio::any_io_executor reply_on,
             std::function<void(LeaveResult)> done) override;
  void check_commit(std::string group_id, std::string member_id, int32_t generation,
                    std::optional<std::string> group_instance_id, asio::any_io_executor reply_on,
                    std::function<void(Status)> done) override;
  void describe(std::string group_id, asio::any_io_executor reply_on,
                std::function<void(GroupDescription)> done) override;
  void list(asio::any_io_executor reply_on,
            std::function<void(std::vector<GroupListing>)> done) override;
  void remove(std::string group_id, asio::any_io_executor reply_on,
              std::function<void(Status)> done) override;
  void stats(asio::any_io_executor reply_on,
             std::function<void(std::vector<GroupStats>)> done) override;
  void stop_core(size_t core) override;

 private:
  struct Shard {
    std::map<std::string, std::unique_ptr<Group>, std::less<>> groups;
  };

  // Runs fn() on group_id's owner core.
  template <typename F>
  void on_owner(std::string_view group_id, F&& fn);
  // Calls row(name, group) for every group of every core, each on its own
  // core, then finish(rows) once, on the core that answered last.
  template <typename Row, typename RowFn, typename FinishFn>
  void gather(RowFn row, FinishFn finish);
  // The group, or null when the shard has none (on its owner core).
  Group* find(size_t core, std::string_view group_id);
  // After a change to `group` on its owner core: keeps the count of active
  // groups (members or outstanding member ids) and persists the group if it
  // settled.
  void after_change(size_t core, Group& group, bool was_active);
  void tick(size_t core);

  CoreSet& cores_;
  OffsetStore& offsets_;
  // Shared with the writes queued on the sync threads, which may run after
  // the coordinator is gone (the sync threads end after it in tests).
  std::shared_ptr<GroupStore> store_;
  const GroupLimits limits_;
  std::vector<std::unique_ptr<Shard>> shards_;
  // Groups with members or outstanding member ids, broker-wide
  // (GroupLimits::max_groups).
  std::atomic<size_t> active_groups_{0};
};

}  // namespace spillway::broker::groups
