// GroupCoordinator on a real CoreSet (two cores on their own threads): the
// calls run on the group's owner core and answer on the caller's executor;
// a short session runs out by the periodic deadline check (the test waits
// for the outcome, not for a time); settled groups are written to
// DATA_DIR/groups and a new coordinator on the same directory loads them
// Stable; remove() refuses a group with members and deletes offsets.
#include "groups/group_coordinator.h"

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <filesystem>
#include <future>
#include <thread>

#include "core/offset_store.h"
#include "runtime/core_set.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::groups {
namespace {

using std::chrono::milliseconds;

std::vector<std::byte> bytes(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

// Two running cores, an offset store and a coordinator on `dir`; answers
// arrive on a third thread's io_context.
class Running {
 public:
  Running(const std::filesystem::path& dir, GroupLimits limits)
      : offsets_(cores_, storage::posix_file_system(), dir.string()) {
    EXPECT_TRUE(offsets_.load().ok());
    auto opened = GroupCoordinator::open(cores_, offsets_, dir.string(), limits);
    EXPECT_TRUE(opened.ok()) << opened.status().to_string();
    if (opened.ok()) coordinator_ = std::move(*opened);
    for (size_t i = 0; i < cores_.size(); ++i) threads_.emplace_back([this, i] { cores_.run(i); });
    replies_thread_ = std::thread([this] { replies_.run(); });
  }
  ~Running() {
    for (size_t i = 0; i < cores_.size(); ++i) {
      asio::post(cores_.context(i), [this, i] {
        coordinator_->stop_core(i);
        cores_.stop_core(i);
      });
    }
    for (auto& t : threads_) t.join();
    cores_.stop_sync_threads();  // the writes queued, as main() does
    coordinator_.reset();
    work_.reset();
    replies_thread_.join();
  }

  GroupCoordinator& coordinator() { return *coordinator_; }
  OffsetStore& offsets() { return offsets_; }
  asio::any_io_executor replies() { return replies_.get_executor(); }

  // Calls start(executor, done) and waits for done's value.
  template <typename T, typename Start>
  T await(Start start) {
    std::promise<T> promise;
    std::future<T> future = promise.get_future();
    start(replies(), [&promise, this](T v) {
      EXPECT_EQ(std::this_thread::get_id(), replies_thread_.get_id());
      promise.set_value(std::move(v));
    });
    return future.get();
  }

  JoinResult join(std::string member_id = "", milliseconds session = milliseconds(10'000)) {
    JoinRequest r{.group_id = "g",
                  .member_id = std::move(member_id),
                  .client_id = "c",
                  .session_timeout = session,
                  .rebalance_timeout = milliseconds(10'000),
                  .protocol_type = "consumer",
                  .protocols = {{"range", bytes("s")}}};
    return await<JoinResult>([&](auto ex, auto done) {
      coordinator_->join(std::move(r), ex, std::function<void(JoinResult)>(done));
    });
  }
  SyncResult sync(const std::string& member, int32_t generation,
                  std::vector<std::pair<std::string, std::vector<std::byte>>> a = {}) {
    SyncRequest r{.group_id = "g", .member_id = member, .generation = generation};
    r.assignments = std::move(a);
    return await<SyncResult>([&](auto ex, auto done) {
      coordinator_->sync(std::move(r), ex, std::function<void(SyncResult)>(done));
    });
  }
  Status heartbeat(const std::string& member, int32_t generation) {
    return await<Status>([&](auto ex, auto done) {
      coordinator_->heartbeat("g", member, generation, std::nullopt, ex,
                              std::function<void(Status)>(done));
    });
  }
  GroupDescription describe(std::string group = "g") {
    return await<GroupDescription>([&](auto ex, auto done) {
      coordinator_->describe(group, ex, std::function<void(GroupDescription)>(done));
    });
  }
  Status remove(std::string group) {
    return await<Status>([&](auto ex, auto done) {
      coordinator_->remove(group, ex, std::function<void(Status)>(done));
    });
  }

 private:
  CoreSet cores_{2};
  OffsetStore offsets_;
  std::unique_ptr<GroupCoordinator> coordinator_;
  std::vector<std::thread> threads_;
  asio::io_context replies_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      replies_.get_executor()};
  std::thread replies_thread_;
};

class GroupCoordinatorTest : public ::testing::Test {
 protected:
  GroupCoordinatorTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("group_coordinator_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    limits_.min_session_timeout = milliseconds(10);
    limits_.initial_rebalance_delay = milliseconds(0);
  }
  ~GroupCoordinatorTest() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  GroupLimits limits_;
};

TEST_F(GroupCoordinatorTest, JoinSyncHeartbeatDescribeAndStats) {
  Running r(dir_, limits_);
  EXPECT_LT(r.coordinator().owner_core("g"), 2u);
  JoinResult j = r.join();
  ASSERT_TRUE(j.status.ok()) << j.status.to_string();
  EXPECT_EQ(j.generation, 1);
  EXPECT_EQ(j.leader_id, j.member_id);
  SyncResult s = r.sync(j.member_id, 1, {{j.member_id, bytes("all")}});
  ASSERT_TRUE(s.status.ok());
  EXPECT_EQ(s.assignment, bytes("all"));
  EXPECT_TRUE(r.heartbeat(j.member_id, 1).ok());
  EXPECT_EQ(r.heartbeat(j.member_id, 2).code(), ErrorCode::kIllegalGeneration);
  GroupDescription d = r.describe();
  EXPECT_EQ(d.state, GroupState::kStable);
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].assignment, bytes("all"));
  EXPECT_EQ(r.describe("none").status.code(), ErrorCode::kUnknownGroup);
  auto stats = r.await<std::vector<GroupStats>>([&](auto ex, auto done) {
    r.coordinator().stats(ex, std::function<void(std::vector<GroupStats>)>(done));
  });
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].members, 1u);
  EXPECT_EQ(stats[0].rebalances, 1u);
}

TEST_F(GroupCoordinatorTest, ASilentMemberIsRemovedWhenItsSessionRunsOut) {
  Running r(dir_, limits_);
  JoinResult j = r.join("", milliseconds(500));  // room for the sync under load
  ASSERT_TRUE(r.sync(j.member_id, 1).status.ok());
  // Waits for the outcome (the guard only stops a hang).
  const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (r.describe().state != GroupState::kEmpty && std::chrono::steady_clock::now() < guard) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(r.describe().state, GroupState::kEmpty);
  EXPECT_EQ(r.heartbeat(j.member_id, 1).code(), ErrorCode::kUnknownMember);
}

TEST_F(GroupCoordinatorTest, SettledGroupsAreLoadedStableByTheNextCoordinator) {
  std::string member;
  {
    Running r(dir_, limits_);
    JoinResult j = r.join();
    member = j.member_id;
    ASSERT_TRUE(r.sync(member, 1, {{member, bytes("p")}}).status.ok());
  }  // the sync threads write what was queued before they end
  Running again(dir_, limits_);
  GroupDescription d = again.describe();
  EXPECT_EQ(d.state, GroupState::kStable);
  EXPECT_EQ(d.generation, 1);
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].member_id, member);
  EXPECT_TRUE(again.heartbeat(member, 1).ok());
  EXPECT_EQ(again.sync(member, 1).assignment, bytes("p"));
}

TEST_F(GroupCoordinatorTest, RemoveRefusesMembersAndDeletesOffsets) {
  Running r(dir_, limits_);
  JoinResult j = r.join();
  EXPECT_EQ(r.remove("g").code(), ErrorCode::kGroupNotEmpty);
  LeaveResult left = r.await<LeaveResult>([&](auto ex, auto done) {
    r.coordinator().leave("g", {{.member_id = j.member_id}}, ex,
                          std::function<void(LeaveResult)>(done));
  });
  ASSERT_EQ(left.member_status.size(), 1u);
  EXPECT_TRUE(left.member_status[0].ok());
  ASSERT_TRUE(r.offsets().commit("g", {{"t", 0, 5}}).ok());
  EXPECT_TRUE(r.remove("g").ok());
  EXPECT_TRUE(r.offsets().group_offsets("g").empty());
  EXPECT_EQ(r.remove("g").code(), ErrorCode::kUnknownGroup);
  EXPECT_EQ(r.describe().status.code(), ErrorCode::kUnknownGroup);
}

TEST_F(GroupCoordinatorTest, CommitsAreCheckedAgainstTheGeneration) {
  Running r(dir_, limits_);
  auto check = [&](std::string member, int32_t generation) {
    return r.await<Status>([&](auto ex, auto done) {
      r.coordinator().check_commit("g", member, generation, std::nullopt, ex,
                                   std::function<void(Status)>(done));
    });
  };
  EXPECT_TRUE(check("", -1).ok());
  EXPECT_EQ(check("m", 1).code(), ErrorCode::kIllegalGeneration);
  JoinResult j = r.join();
  EXPECT_EQ(check(j.member_id, 1).code(), ErrorCode::kRebalanceInProgress);
  ASSERT_TRUE(r.sync(j.member_id, 1).status.ok());
  EXPECT_TRUE(check(j.member_id, 1).ok());
  EXPECT_EQ(check("", -1).code(), ErrorCode::kUnknownMember);
}

}  // namespace
}  // namespace spillway::broker::groups
