// Consumer groups over the raw Kafka wire against the real broker: the
// join/sync/heartbeat/leave flow of two members, MEMBER_ID_REQUIRED, the
// errors that tell a member it is out of date (ILLEGAL_GENERATION,
// UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS), session expiry, static
// membership, OffsetCommit's generation checks and the group apis'
// descriptions.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_group_member.h"
#include "spillway/common/kafka/delete_groups.h"
#include "spillway/common/kafka/describe_groups.h"
#include "spillway/common/kafka/list_groups.h"

namespace spillway::testing {
namespace {

namespace errors = kafka::errors;

class KafkaGroups : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerProcess::Options options;
    // No initial delay (each first rebalance completes at once) and short
    // sessions allowed, so that expiry tests wait little.
    options.args = {"--group-initial-rebalance-delay-ms", "0", "--group-min-session-timeout-ms",
                    "100"};
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
  }

  std::unique_ptr<GroupMember> member(std::string group = "g",
                                      std::optional<std::string> instance = std::nullopt) {
    auto m =
        std::make_unique<GroupMember>(broker_->kafka_port(), std::move(group), std::move(instance));
    EXPECT_TRUE(m->connected());
    return m;
  }

  struct Described {
    int16_t error = -1;
    std::string state;
    std::string protocol;
    std::vector<std::tuple<std::string, std::string, std::string, std::string>> members;
  };
  Described describe(std::string_view group, int16_t version = 4) {
    KafkaWireClient client(broker_->kafka_port());
    std::vector<std::string_view> names = {group};
    kafka::DescribeGroupsRequest r;
    r.groups = names;
    Described out;
    auto got = client.try_call<kafka::DescribeGroupsResponse>(r, version);
    EXPECT_TRUE(got.ok()) << got.status().to_string();
    if (!got.ok()) return out;
    for (const auto& g : got->groups) {
      out.error = g.error_code;
      out.state = g.group_state;
      out.protocol = g.protocol_data;
      for (const auto& m : g.members) {
        out.members.emplace_back(std::string(m.member_id), std::string(m.client_host),
                                 string_of(m.member_metadata), string_of(m.member_assignment));
      }
    }
    return out;
  }

  std::unique_ptr<BrokerProcess> broker_;
};

TEST_F(KafkaGroups, TwoMembersJoinSyncHeartbeatAndLeave) {
  auto a = member();
  JoinOutcome ja = a->join_fresh();
  ASSERT_EQ(ja.error, 0);
  EXPECT_EQ(ja.generation, 1);
  EXPECT_EQ(ja.leader, a->member_id());
  EXPECT_EQ(ja.protocol_name, "range");
  ASSERT_EQ(ja.members.size(), 1u);
  EXPECT_EQ(ja.members[0].second, "sub");
  EXPECT_EQ(a->sync({{a->member_id(), "all"}}).assignment, "all");
  EXPECT_EQ(a->heartbeat(), 0);

  // B joins: A learns of the rebalance by its heartbeat and rejoins.
  auto b = member();
  b->protocols = {{"range", "sub-b"}};
  b->send_join_fresh();
  EXPECT_EQ(a->heartbeat_until_not(0), errors::kRebalanceInProgress);
  a->send_join();
  JoinOutcome ja2 = a->read_join();
  JoinOutcome jb = b->read_join();
  ASSERT_EQ(ja2.error, 0);
  ASSERT_EQ(jb.error, 0);
  EXPECT_EQ(ja2.generation, 2);
  EXPECT_EQ(jb.generation, 2);
  EXPECT_EQ(jb.leader, a->member_id());
  EXPECT_EQ(ja2.members.size(), 2u);  // the leader sees every subscription
  EXPECT_TRUE(jb.members.empty());    // a follower none

  // The follower's sync waits for the leader's assignment.
  b->send_sync();
  EXPECT_EQ(a->sync({{a->member_id(), "p0"}, {b->member_id(), "p1"}}).assignment, "p0");
  EXPECT_EQ(b->read_sync().assignment, "p1");
  EXPECT_EQ(a->heartbeat(), 0);
  EXPECT_EQ(b->heartbeat(), 0);

  Described d = describe("g");
  EXPECT_EQ(d.error, 0);
  EXPECT_EQ(d.state, "Stable");
  EXPECT_EQ(d.protocol, "range");
  ASSERT_EQ(d.members.size(), 2u);
  for (const auto& [id, host, meta, assignment] : d.members) {
    EXPECT_EQ(host, "/127.0.0.1");
    EXPECT_EQ(assignment, id == a->member_id() ? "p0" : "p1");
    EXPECT_EQ(meta, id == a->member_id() ? "sub" : "sub-b");
  }

  // B leaves: A rebalances alone.
  EXPECT_EQ(b->leave(), 0);
  EXPECT_EQ(a->heartbeat(), errors::kRebalanceInProgress);
  JoinOutcome ja3 = a->join();
  EXPECT_EQ(ja3.error, 0);
  EXPECT_EQ(ja3.generation, 3);
  EXPECT_EQ(ja3.members.size(), 1u);
  // The old member id is gone.
  EXPECT_EQ(b->heartbeat(), errors::kUnknownMemberId);
  // A leaves by the v0-2 form: the group is Empty.
  EXPECT_EQ(a->leave(1), 0);
  EXPECT_EQ(describe("g").state, "Empty");
}

TEST_F(KafkaGroups, EveryServedVersionJoinsSyncsHeartbeatsAndLeaves) {
  for (int16_t v = 0; v <= 7; ++v) {
    SCOPED_TRACE("JoinGroup v" + std::to_string(v));
    auto m = member("versions-" + std::to_string(v));
    JoinOutcome j = m->join_fresh(v);
    ASSERT_EQ(j.error, 0);
    EXPECT_EQ(j.generation, 1);
    EXPECT_EQ(j.leader, m->member_id());
    ASSERT_EQ(j.members.size(), 1u);
    EXPECT_EQ(j.members[0].second, "sub");
    EXPECT_EQ(j.protocol_name, "range");
    const int16_t sync_v = std::min<int16_t>(v, 5);
    EXPECT_EQ(m->sync({{m->member_id(), "mine"}}, sync_v).assignment, "mine");
    EXPECT_EQ(m->heartbeat(std::min<int16_t>(v, 4)), 0);
    EXPECT_EQ(m->leave(std::min<int16_t>(v, 5)), 0);
  }
}

TEST_F(KafkaGroups, FirstJoinV4NeedsAMemberIdAndV3DoesNot) {
  auto a = member();
  JoinOutcome first = a->join(4);
  EXPECT_EQ(first.error, errors::kMemberIdRequired);
  EXPECT_FALSE(first.member_id.empty());
  // Until it joins with that id, the group has no member.
  EXPECT_EQ(describe("g").members.size(), 0u);
  JoinOutcome second = a->join(4);
  EXPECT_EQ(second.error, 0);
  EXPECT_EQ(second.member_id, first.member_id);

  auto old = member("g3");
  JoinOutcome v3 = old->join(3);
  EXPECT_EQ(v3.error, 0);
  EXPECT_FALSE(v3.member_id.empty());
  EXPECT_EQ(v3.generation, 1);
}

TEST_F(KafkaGroups, OutOfDateMembersAreTold) {
  auto a = member();
  ASSERT_EQ(a->join_fresh().error, 0);
  ASSERT_EQ(a->sync({{a->member_id(), "x"}}).error, 0);
  // A wrong generation.
  a->set_generation(7);
  EXPECT_EQ(a->heartbeat(), errors::kIllegalGeneration);
  EXPECT_EQ(a->sync().error, errors::kIllegalGeneration);
  a->set_generation(1);
  // An unknown member id.
  auto stranger = member();
  stranger->set_member_id("nobody");
  stranger->set_generation(1);
  EXPECT_EQ(stranger->heartbeat(), errors::kUnknownMemberId);
  EXPECT_EQ(stranger->sync().error, errors::kUnknownMemberId);
  EXPECT_EQ(stranger->join().error, errors::kUnknownMemberId);
  EXPECT_EQ(stranger->leave(), errors::kUnknownMemberId);
  // While a rebalance runs (B joined), A's heartbeat and sync say so.
  auto b = member();
  b->send_join_fresh();
  EXPECT_EQ(a->heartbeat_until_not(0), errors::kRebalanceInProgress);
  EXPECT_EQ(a->sync().error, errors::kRebalanceInProgress);
  a->send_join();
  EXPECT_EQ(a->read_join().error, 0);
  EXPECT_EQ(b->read_join().error, 0);
}

TEST_F(KafkaGroups, BadJoinsAreRefusedClearly) {
  auto a = member();
  a->session_timeout_ms = 50;  // below --group-min-session-timeout-ms
  EXPECT_EQ(a->join().error, errors::kInvalidSessionTimeout);
  a->session_timeout_ms = 10'000'000;
  EXPECT_EQ(a->join().error, errors::kInvalidSessionTimeout);
  a->session_timeout_ms = 10'000;
  ASSERT_EQ(a->join_fresh().error, 0);
  // A member that shares no assignor with the group.
  auto b = member();
  b->protocols = {{"roundrobin", "x"}};
  EXPECT_EQ(b->join().error, errors::kInconsistentGroupProtocol);
  // An empty group id.
  auto c = member("");
  EXPECT_EQ(c->join().error, errors::kInvalidGroupId);
}

TEST_F(KafkaGroups, TheProtocolEveryMemberSupportsIsChosenByVotes) {
  auto a = member();
  a->protocols = {{"roundrobin", "a"}, {"range", "a"}};
  ASSERT_EQ(a->join_fresh().protocol_name, "roundrobin");
  ASSERT_EQ(a->sync({}).error, 0);
  // B and C prefer range; only range and roundrobin are common to all.
  auto b = member();
  b->protocols = {{"range", "b"}, {"roundrobin", "b"}};
  auto c = member();
  c->protocols = {{"sticky", "c"}, {"range", "c"}, {"roundrobin", "c"}};
  b->send_join_fresh();
  c->send_join_fresh();
  EXPECT_EQ(a->heartbeat_until_not(0), errors::kRebalanceInProgress);
  a->send_join();
  EXPECT_EQ(a->read_join().protocol_name, "range");
  EXPECT_EQ(b->read_join().protocol_name, "range");
  EXPECT_EQ(c->read_join().protocol_name, "range");
}

TEST_F(KafkaGroups, ASessionThatRunsOutRebalancesTheOthers) {
  auto a = member();
  a->session_timeout_ms = 1'000;  // long enough for its own join and sync under load
  ASSERT_EQ(a->join_fresh().error, 0);
  ASSERT_EQ(a->sync({{a->member_id(), "x"}}).error, 0);
  auto b = member();
  b->session_timeout_ms = 10'000;
  b->send_join_fresh();
  EXPECT_EQ(a->heartbeat_until_not(0), errors::kRebalanceInProgress);
  a->send_join();
  ASSERT_EQ(a->read_join().error, 0);
  ASSERT_EQ(b->read_join().error, 0);
  b->send_sync();
  ASSERT_EQ(a->sync({{a->member_id(), "p0"}, {b->member_id(), "p1"}}).error, 0);
  ASSERT_EQ(b->read_sync().error, 0);
  // A goes silent; B keeps heartbeating and is told to rejoin once A's
  // session has run out.
  EXPECT_EQ(b->heartbeat_until_not(0), errors::kRebalanceInProgress);
  JoinOutcome jb = b->join();
  EXPECT_EQ(jb.error, 0);
  EXPECT_EQ(jb.generation, 3);
  EXPECT_EQ(jb.leader, b->member_id());
  ASSERT_EQ(jb.members.size(), 1u);
  EXPECT_EQ(a->heartbeat(), errors::kUnknownMemberId);
}

TEST_F(KafkaGroups, AStaticMemberRestartsWithoutARebalance) {
  auto a = member("g", "instance-a");
  ASSERT_EQ(a->join().error, 0);  // static members need no MEMBER_ID_REQUIRED round
  ASSERT_EQ(a->sync({{a->member_id(), "pa"}}).error, 0);
  auto b = member("g", "instance-b");
  b->send_join();
  EXPECT_EQ(a->heartbeat_until_not(0), errors::kRebalanceInProgress);
  a->send_join();
  ASSERT_EQ(a->read_join().error, 0);
  ASSERT_EQ(b->read_join().error, 0);
  b->send_sync();
  ASSERT_EQ(a->sync({{a->member_id(), "pa"}, {b->member_id(), "pb"}}).error, 0);
  ASSERT_EQ(b->read_sync().assignment, "pb");
  const std::string old_b = b->member_id();

  // B restarts (a new connection, no member id, the same instance id).
  auto b2 = member("g", "instance-b");
  JoinOutcome j = b2->join();
  ASSERT_EQ(j.error, 0);
  EXPECT_NE(b2->member_id(), old_b);
  EXPECT_EQ(j.generation, 2);  // no new generation
  EXPECT_EQ(b2->sync().assignment, "pb");
  // Nobody else rebalanced, and the old id is fenced.
  EXPECT_EQ(a->heartbeat(), 0);
  EXPECT_EQ(b->heartbeat(), errors::kFencedInstanceId);
  EXPECT_EQ(b2->heartbeat(), 0);
  // A static member leaves by its instance id alone.
  b2->set_member_id("");
  EXPECT_EQ(b2->leave(), 0);
  EXPECT_EQ(a->heartbeat(), errors::kRebalanceInProgress);
}

TEST_F(KafkaGroups, OffsetCommitChecksTheGeneration) {
  WireClient native(broker_->port());
  ASSERT_EQ(native.create_topic("t", 1), ErrorCode::kOk);
  auto a = member();
  // Simple commits while the group has no members.
  EXPECT_EQ(a->commit("t", 0, 5, -1, ""), 0);
  EXPECT_EQ(a->commit("t", 0, 5, 3, "someone"), errors::kIllegalGeneration);
  ASSERT_EQ(a->join_fresh().error, 0);
  // A simple commit now: the group has a member.
  EXPECT_EQ(a->commit("t", 0, 6, -1, ""), errors::kUnknownMemberId);
  // During CompletingRebalance (joined, not synced): rebalance in progress.
  EXPECT_EQ(a->commit("t", 0, 6, 1, a->member_id()), errors::kRebalanceInProgress);
  ASSERT_EQ(a->sync({{a->member_id(), "x"}}).error, 0);
  EXPECT_EQ(a->commit("t", 0, 7, 1, a->member_id()), 0);
  EXPECT_EQ(a->commit("t", 0, 7, 2, a->member_id()), errors::kIllegalGeneration);
  EXPECT_EQ(a->commit("t", 0, 7, 1, "other"), errors::kUnknownMemberId);
}

TEST_F(KafkaGroups, ListAndDeleteGroups) {
  auto a = member("busy");
  ASSERT_EQ(a->join_fresh().error, 0);
  ASSERT_EQ(a->sync({}).error, 0);

  KafkaWireClient client(broker_->kafka_port());
  kafka::ListGroupsRequest list;
  auto listed = client.try_call<kafka::ListGroupsResponse>(list, 4);
  ASSERT_TRUE(listed.ok());
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& g : listed->groups) groups.emplace_back(g.group_id, g.group_state);
  EXPECT_NE(std::find(groups.begin(), groups.end(),
                      std::pair<std::string, std::string>{"busy", "Stable"}),
            groups.end());

  std::vector<std::string_view> names = {"busy", "nothing-here"};
  kafka::DeleteGroupsRequest del;
  del.groups_names = names;
  auto deleted = client.try_call<kafka::DeleteGroupsResponse>(del, 1);
  ASSERT_TRUE(deleted.ok());
  std::vector<int16_t> codes;
  for (const auto& r : deleted->results) codes.push_back(r.error_code);
  EXPECT_EQ(codes, (std::vector<int16_t>{errors::kNonEmptyGroup, errors::kGroupIdNotFound}));
  EXPECT_EQ(a->leave(), 0);
  std::vector<std::string_view> busy = {"busy"};
  del.groups_names = busy;
  deleted = client.try_call<kafka::DeleteGroupsResponse>(del, 1);
  ASSERT_TRUE(deleted.ok());
  for (const auto& r : deleted->results) EXPECT_EQ(r.error_code, 0);
  EXPECT_EQ(describe("busy").state, "Dead");
}

}  // namespace
}  // namespace spillway::testing
