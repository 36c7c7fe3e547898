// Group: Kafka's classic group state machine, driven with a synthetic clock
// (tick(now) applies the deadlines), so every timeout is exact and no test
// waits.
#include "groups/group.h"

#include <gtest/gtest.h>

#include <optional>

namespace spillway::broker::groups {
namespace {

using std::chrono::milliseconds;

std::vector<std::byte> bytes(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

class GroupTest : public ::testing::Test {
 protected:
  GroupTest() {
    limits_.min_session_timeout = milliseconds(10);
    limits_.initial_rebalance_delay = milliseconds(0);
    limits_.max_group_size = 3;
  }

  JoinRequest request(std::string member_id = "",
                      std::vector<std::pair<std::string, std::string>> protocols = {{"range", "s"}},
                      std::optional<std::string> instance = std::nullopt) {
    JoinRequest r;
    r.group_id = "g";
    r.member_id = std::move(member_id);
    r.group_instance_id = std::move(instance);
    r.client_id = "client";
    r.session_timeout = milliseconds(100);
    r.rebalance_timeout = milliseconds(1'000);
    r.protocol_type = "consumer";
    for (auto& [name, meta] : protocols) r.protocols.push_back({name, bytes(meta)});
    return r;
  }

  // Joins and returns where the answer will land (nullopt while parked).
  std::shared_ptr<std::optional<JoinResult>> join(Group& g, JoinRequest r) {
    auto out = std::make_shared<std::optional<JoinResult>>();
    g.join(std::move(r), now_, [out](JoinResult res) { *out = std::move(res); });
    return out;
  }
  std::shared_ptr<std::optional<SyncResult>> sync(
      Group& g, const std::string& member, int32_t generation,
      std::vector<std::pair<std::string, std::vector<std::byte>>> assignments = {}) {
    auto out = std::make_shared<std::optional<SyncResult>>();
    SyncRequest r{.group_id = "g", .member_id = member, .generation = generation};
    r.assignments = std::move(assignments);
    g.sync(std::move(r), now_, [out](SyncResult res) { *out = std::move(res); });
    return out;
  }

  // A Stable group with members joined (in one generation) and synced.
  std::vector<std::string> stable(Group& g, int members) {
    std::vector<std::shared_ptr<std::optional<JoinResult>>> joins;
    for (int i = 0; i < members; ++i) joins.push_back(join(g, request()));
    // The first join completed a generation alone; the others made a
    // rebalance that needs everyone to rejoin.
    std::vector<std::string> ids;
    if (members > 1) {
      const std::string first = (*joins[0])->member_id;
      auto again = join(g, request(first));
      joins[0] = again;
    }
    for (auto& j : joins) {
      EXPECT_TRUE(j->has_value());
      if (j->has_value()) ids.push_back((**j).member_id);
    }
    const JoinResult& leader = **joins[0];
    std::vector<std::pair<std::string, std::vector<std::byte>>> assignments;
    for (const auto& id : ids) assignments.emplace_back(id, bytes("for-" + id));
    std::vector<std::shared_ptr<std::optional<SyncResult>>> syncs;
    for (const auto& id : ids) {
      if (id != leader.leader_id) syncs.push_back(sync(g, id, leader.generation));
    }
    syncs.push_back(sync(g, leader.leader_id, leader.generation, assignments));
    for (auto& s : syncs) EXPECT_TRUE(s->has_value() && (**s).status.ok());
    EXPECT_EQ(g.state(), GroupState::kStable);
    return ids;
  }

  GroupLimits limits_;
  Clock::time_point now_ = Clock::now();
};

TEST_F(GroupTest, TheFirstRebalanceWaitsForTheInitialDelay) {
  limits_.initial_rebalance_delay = milliseconds(100);
  Group g("g", limits_);
  auto a = join(g, request());
  EXPECT_EQ(g.state(), GroupState::kPreparingRebalance);
  now_ += milliseconds(99);
  g.tick(now_);
  EXPECT_FALSE(a->has_value());
  now_ += milliseconds(1);
  g.tick(now_);
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((**a).generation, 1);
  EXPECT_EQ(g.state(), GroupState::kCompletingRebalance);
}

TEST_F(GroupTest, TheInitialDelayGoesOnWhileMembersKeepArriving) {
  limits_.initial_rebalance_delay = milliseconds(100);
  Group g("g", limits_);
  auto a = join(g, request());
  now_ += milliseconds(50);
  auto b = join(g, request());
  now_ += milliseconds(50);
  g.tick(now_);  // 100 ms: B came meanwhile, so another 100 ms
  EXPECT_FALSE(a->has_value());
  now_ += milliseconds(50);
  auto c = join(g, request());
  now_ += milliseconds(50);
  g.tick(now_);  // 200 ms: C came, another 100 ms
  EXPECT_FALSE(a->has_value());
  now_ += milliseconds(100);
  g.tick(now_);  // 300 ms: nobody new
  ASSERT_TRUE(a->has_value() && b->has_value() && c->has_value());
  EXPECT_EQ((**c).generation, 1);
  EXPECT_EQ((**a).leader_id, (**c).leader_id);
}

TEST_F(GroupTest, TheInitialDelayNeverOutlastsTheRebalanceTimeout) {
  limits_.initial_rebalance_delay = milliseconds(400);
  Group g("g", limits_);
  auto first = join(g, request());  // rebalance timeout 1 s
  std::vector<std::shared_ptr<std::optional<JoinResult>>> more;
  for (int i = 0; i < 2; ++i) {
    now_ += milliseconds(400);
    more.push_back(join(g, request()));
    g.tick(now_);
  }
  EXPECT_FALSE(first->has_value());  // 800 ms: extended by the 200 ms left
  now_ += milliseconds(200);
  g.tick(now_);
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((**first).generation, 1);
}

TEST_F(GroupTest, MembersThatDoNotRejoinInTheRebalanceTimeoutAreDropped) {
  Group g("g", limits_);
  std::vector<std::string> ids = stable(g, 2);
  auto c = join(g, request());  // a third member: a rebalance
  auto a = join(g, request(ids[0]));
  // B stays alive by heartbeats but never rejoins.
  for (int i = 0; i < 16; ++i) {
    now_ += milliseconds(60);
    EXPECT_EQ(g.heartbeat(ids[1], 2, std::nullopt, now_).code(), ErrorCode::kRebalanceInProgress);
    g.tick(now_);
  }
  EXPECT_FALSE(c->has_value());  // 960 ms: the rebalance timeout is 1 s
  now_ += milliseconds(40);
  g.tick(now_);
  ASSERT_TRUE(a->has_value() && c->has_value());
  EXPECT_EQ((**a).generation, 3);
  EXPECT_EQ(g.member_count(), 2u);
  EXPECT_EQ(g.heartbeat(ids[1], 3, std::nullopt, now_).code(), ErrorCode::kUnknownMember);
}

TEST_F(GroupTest, ASessionThatRunsOutRebalancesTheRest) {
  Group g("g", limits_);
  std::vector<std::string> ids = stable(g, 2);
  now_ += milliseconds(60);
  EXPECT_TRUE(g.heartbeat(ids[0], 2, std::nullopt, now_).ok());
  now_ += milliseconds(60);  // B's 100 ms are over, A's not
  g.tick(now_);
  EXPECT_EQ(g.state(), GroupState::kPreparingRebalance);
  EXPECT_EQ(g.member_count(), 1u);
  EXPECT_EQ(g.heartbeat(ids[0], 2, std::nullopt, now_).code(), ErrorCode::kRebalanceInProgress);
  auto a = join(g, request(ids[0]));
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((**a).generation, 3);
}

TEST_F(GroupTest, AMemberWaitingForItsJoinDoesNotTimeOut) {
  Group g("g", limits_);
  std::vector<std::string> ids = stable(g, 2);
  auto a = join(g, request(ids[0]));  // the leader rejoins: a rebalance
  // B heartbeats (told to rejoin) but takes its time; A only waits, far
  // past its own 100 ms session.
  for (int i = 0; i < 8; ++i) {
    now_ += milliseconds(60);
    EXPECT_EQ(g.heartbeat(ids[1], 2, std::nullopt, now_).code(), ErrorCode::kRebalanceInProgress);
    g.tick(now_);
  }
  EXPECT_FALSE(a->has_value());
  EXPECT_EQ(g.member_count(), 2u);
  auto b = join(g, request(ids[1]));
  ASSERT_TRUE(a->has_value() && b->has_value());
  EXPECT_EQ((**a).generation, 3);
}

TEST_F(GroupTest, MemberIdRequiredHandsOutAnIdThatExpires) {
  Group g("g", limits_);
  JoinRequest r = request();
  r.require_known_member_id = true;
  auto first = join(g, r);
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((**first).status.code(), ErrorCode::kMemberIdRequired);
  const std::string id = (**first).member_id;
  EXPECT_EQ(g.member_count(), 0u);
  now_ += milliseconds(100);
  g.tick(now_);  // never came back
  auto late = join(g, request(id));
  ASSERT_TRUE(late->has_value());
  EXPECT_EQ((**late).status.code(), ErrorCode::kUnknownMember);
}

TEST_F(GroupTest, AStaticMemberReplacesItselfWithoutARebalance) {
  Group g("g", limits_);
  auto a = join(g, request("", {{"range", "s"}}, "ia"));
  ASSERT_TRUE(a->has_value());
  const std::string old_id = (**a).member_id;
  ASSERT_TRUE(sync(g, old_id, 1, {{old_id, bytes("mine")}})->has_value());
  const uint64_t rebalances = g.rebalances();
  (void)g.take_settled();

  auto again = join(g, request("", {{"range", "s"}}, "ia"));
  ASSERT_TRUE(again->has_value());
  EXPECT_TRUE((**again).status.ok());
  EXPECT_NE((**again).member_id, old_id);
  EXPECT_EQ((**again).generation, 1);
  // It led the group: it is told the old id leads (as Kafka does), so that
  // it does not run an assignment over no members.
  EXPECT_EQ((**again).leader_id, old_id);
  EXPECT_TRUE((**again).members.empty());
  EXPECT_EQ(g.rebalances(), rebalances);
  EXPECT_TRUE(g.take_settled());  // the new member id is persisted
  auto s = sync(g, (**again).member_id, 1);
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((**s).assignment, bytes("mine"));
  EXPECT_EQ(g.heartbeat(old_id, 1, std::string("ia"), now_).code(), ErrorCode::kFencedInstanceId);

  // A changed subscription does rebalance.
  auto changed = join(g, request("", {{"range", "other"}}, "ia"));
  EXPECT_GT(g.rebalances(), rebalances);
}

TEST_F(GroupTest, ARetriedJoinWhileCompletingGetsTheSameAnswer) {
  Group g("g", limits_);
  auto a = join(g, request());
  ASSERT_TRUE(a->has_value());
  auto retry = join(g, request((**a).member_id));
  ASSERT_TRUE(retry->has_value());
  EXPECT_EQ((**retry).generation, (**a).generation);
  EXPECT_EQ(g.state(), GroupState::kCompletingRebalance);
}

TEST_F(GroupTest, TheLeadersAssignmentsForStrangersAreIgnored) {
  Group g("g", limits_);
  auto a = join(g, request());
  const std::string id = (**a).member_id;
  auto s = sync(g, id, 1, {{id, bytes("x")}, {"stranger", bytes("y")}});
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((**s).assignment, bytes("x"));
  EXPECT_EQ(g.describe().members.size(), 1u);
}

TEST_F(GroupTest, LimitsAreCheckedBeforeAnythingIsKept) {
  Group g("g", limits_);
  JoinRequest bad = request();
  bad.session_timeout = milliseconds(5);
  EXPECT_EQ((**join(g, bad)).status.code(), ErrorCode::kInvalidSessionTimeout);
  JoinRequest none = request();
  none.protocols.clear();
  EXPECT_EQ((**join(g, none)).status.code(), ErrorCode::kInconsistentGroupProtocol);
  JoinRequest many = request();
  for (int i = 0; i < 100; ++i) many.protocols.push_back({"p", {}});
  EXPECT_EQ((**join(g, many)).status.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(g.member_count(), 0u);
  stable(g, 3);
  EXPECT_EQ((**join(g, request())).status.code(), ErrorCode::kGroupFull);
  JoinRequest other = request("", {{"roundrobin", "s"}});
  EXPECT_EQ((**join(g, other)).status.code(), ErrorCode::kInconsistentGroupProtocol);
}

TEST_F(GroupTest, EveryoneLeavingEmptiesTheGroupAndSettlesIt) {
  Group g("g", limits_);
  std::vector<std::string> ids = stable(g, 2);
  (void)g.take_settled();
  LeaveResult r = g.leave({{.member_id = ids[0]}, {.member_id = ids[1]}, {.member_id = "x"}}, now_);
  ASSERT_EQ(r.member_status.size(), 3u);
  EXPECT_TRUE(r.member_status[0].ok());
  EXPECT_TRUE(r.member_status[1].ok());
  EXPECT_EQ(r.member_status[2].code(), ErrorCode::kUnknownMember);
  EXPECT_EQ(g.state(), GroupState::kEmpty);
  EXPECT_EQ(g.generation(), 3);
  EXPECT_TRUE(g.take_settled());
  EXPECT_TRUE(g.check_commit("", -1, std::nullopt, now_).ok());
}

TEST_F(GroupTest, ASnapshotRestoresStableWithFreshSessions) {
  Group g("g", limits_);
  std::vector<std::string> ids = stable(g, 2);
  StoredGroup s = g.snapshot();
  now_ += milliseconds(1'000);
  Group back(s, limits_, now_);
  EXPECT_EQ(back.state(), GroupState::kStable);
  EXPECT_EQ(back.generation(), g.generation());
  EXPECT_TRUE(back.heartbeat(ids[0], g.generation(), std::nullopt, now_).ok());
  auto a = sync(back, ids[1], g.generation());
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((**a).assignment, bytes("for-" + ids[1]));
}

TEST_F(GroupTest, ParkedCallsAreAnsweredWhenTheGroupGoes) {
  auto parked = std::make_shared<std::optional<JoinResult>>();
  {
    limits_.initial_rebalance_delay = milliseconds(100);
    Group g("g", limits_);
    g.join(request(), now_, [parked](JoinResult r) { *parked = std::move(r); });
    EXPECT_FALSE(parked->has_value());
  }
  ASSERT_TRUE(parked->has_value());
  EXPECT_EQ((**parked).status.code(), ErrorCode::kShuttingDown);
}

}  // namespace
}  // namespace spillway::broker::groups
