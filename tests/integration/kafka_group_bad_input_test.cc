// Bad input to the group apis against the real broker: a JoinGroup with an
// absurd number of protocols or oversized metadata, a SyncGroup with
// assignments from a follower, heartbeats and syncs for groups that do not
// exist, the group and member limits, and a thousand groups created and
// deleted. Each gets a clear Kafka error, the broker keeps serving and its
// resident memory stays bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "broker_process.h"
#include "kafka_group_member.h"
#include "spillway/common/kafka/delete_groups.h"
#include "spillway/common/kafka/describe_groups.h"
#include "spillway/common/kafka/list_groups.h"

namespace spillway::testing {
namespace {

namespace errors = kafka::errors;

int64_t rss_kib(pid_t pid) {
  return process_status_kib(pid, "VmRSS");
}

std::unique_ptr<BrokerProcess> start(std::vector<std::string> extra = {}) {
  BrokerProcess::Options options;
  options.args = {"--group-initial-rebalance-delay-ms", "0", "--threads", "2"};
  for (auto& a : extra) options.args.push_back(std::move(a));
  auto broker = BrokerProcess::start(options);
  EXPECT_TRUE(broker.ok()) << broker.status().to_string();
  return broker.ok() ? std::move(*broker) : nullptr;
}

TEST(KafkaGroupBadInput, AbsurdProtocolListsAndOversizedMetadataAreRefused) {
  auto broker = start();
  ASSERT_TRUE(broker);
  const int64_t rss_before = rss_kib(broker->pid());
  GroupMember m(broker->kafka_port(), "g");
  m.protocols.clear();
  for (int i = 0; i < 100'000; ++i) m.protocols.emplace_back("p" + std::to_string(i), "");
  EXPECT_EQ(m.join(5).error, errors::kInvalidRequest);
  m.protocols = {{"range", std::string(2 << 20, 'm')}};  // above the 1 MiB default
  EXPECT_EQ(m.join(5).error, errors::kInvalidRequest);
  m.protocols = {{"range", ""}};
  m.protocol_type = "";
  EXPECT_EQ(m.join(5).error, errors::kInconsistentGroupProtocol);
  m.protocol_type = "consumer";
  m.protocols.clear();
  EXPECT_EQ(m.join(5).error, errors::kInconsistentGroupProtocol);
  // The same connection still joins properly, and nothing was kept.
  m.protocols = {{"range", "sub"}};
  EXPECT_EQ(m.join_fresh().error, 0);
  EXPECT_LT(rss_kib(broker->pid()) - rss_before, 64 * 1024);
}

TEST(KafkaGroupBadInput, AFollowersAssignmentsAreIgnored) {
  auto broker = start();
  ASSERT_TRUE(broker);
  GroupMember a(broker->kafka_port(), "g");
  ASSERT_EQ(a.join_fresh().error, 0);
  ASSERT_EQ(a.sync({{a.member_id(), "first"}}).error, 0);
  GroupMember b(broker->kafka_port(), "g");
  b.send_join_fresh();
  a.heartbeat_until_not(0);
  a.send_join();
  ASSERT_EQ(a.read_join().error, 0);
  JoinOutcome jb = b.read_join();
  ASSERT_EQ(jb.error, 0);
  ASSERT_EQ(jb.leader, a.member_id());
  // The follower sends assignments of its own: they change nothing.
  b.send_sync({{a.member_id(), "evil"}, {b.member_id(), "evil"}});
  EXPECT_EQ(a.sync({{a.member_id(), "pa"}, {b.member_id(), "pb"}}).assignment, "pa");
  EXPECT_EQ(b.read_sync().assignment, "pb");
}

TEST(KafkaGroupBadInput, GroupsThatDoNotExistAreNotCreatedByHeartbeats) {
  auto broker = start();
  ASSERT_TRUE(broker);
  for (int i = 0; i < 100; ++i) {
    GroupMember m(broker->kafka_port(), "ghost-" + std::to_string(i));
    m.set_member_id("m");
    m.set_generation(1);
    EXPECT_EQ(m.heartbeat(), errors::kUnknownMemberId);
    EXPECT_EQ(m.sync().error, errors::kUnknownMemberId);
    EXPECT_EQ(m.leave(), errors::kUnknownMemberId);
  }
  KafkaWireClient client(broker->kafka_port());
  kafka::ListGroupsRequest list;
  auto listed = client.try_call<kafka::ListGroupsResponse>(list, 3);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->groups.size(), 0);
}

TEST(KafkaGroupBadInput, GroupAndMemberLimitsAreKafkaErrors) {
  auto broker = start({"--group-max-groups", "2", "--group-max-size", "1"});
  ASSERT_TRUE(broker);
  GroupMember a(broker->kafka_port(), "one");
  ASSERT_EQ(a.join(3).error, 0);
  GroupMember b(broker->kafka_port(), "one");
  EXPECT_EQ(b.join(3).error, errors::kGroupMaxSizeReached);
  GroupMember c(broker->kafka_port(), "two");
  ASSERT_EQ(c.join(3).error, 0);
  GroupMember d(broker->kafka_port(), "three");
  EXPECT_EQ(d.join(3).error, errors::kGroupMaxSizeReached);
  // Once a group empties, another may take its place.
  ASSERT_EQ(a.sync({}).error, 0);
  EXPECT_EQ(a.leave(), 0);
  EXPECT_EQ(d.join(3).error, 0);
}

TEST(KafkaGroupBadInput, MemberIdsHandedOutCountAgainstTheGroupLimit) {
  // A client that only ever sends first joins (MEMBER_ID_REQUIRED) cannot
  // make the broker hold more groups than max_groups.
  auto broker = start({"--group-max-groups", "1"});
  ASSERT_TRUE(broker);
  GroupMember a(broker->kafka_port(), "one");
  EXPECT_EQ(a.join(4).error, errors::kMemberIdRequired);
  GroupMember b(broker->kafka_port(), "two");
  EXPECT_EQ(b.join(4).error, errors::kGroupMaxSizeReached);
  EXPECT_EQ(a.join(4).error, 0);  // the id handed out still joins
}

TEST(KafkaGroupBadInput, AThousandGroupsCreatedAndDeletedLeaveMemoryBounded) {
  auto broker = start();
  ASSERT_TRUE(broker);
  KafkaWireClient admin(broker->kafka_port());
  auto cycle = [&](int i) {
    const std::string name = "churn-" + std::to_string(i);
    GroupMember m(broker->kafka_port(), name);
    ASSERT_EQ(m.join(3).error, 0);
    ASSERT_EQ(m.sync({{m.member_id(), std::string(1024, 'a')}}).error, 0);
    ASSERT_EQ(m.leave(), 0);
    std::vector<std::string_view> names = {name};
    kafka::DeleteGroupsRequest del;
    del.groups_names = names;
    auto deleted = admin.try_call<kafka::DeleteGroupsResponse>(del, 1);
    ASSERT_TRUE(deleted.ok());
    for (const auto& r : deleted->results) ASSERT_EQ(r.error_code, 0);
  };
  for (int i = 0; i < 50; ++i) cycle(i);  // warm-up: pools, caches
  const int64_t rss_before = rss_kib(broker->pid());
  for (int i = 50; i < 1'050; ++i) cycle(i);
  EXPECT_LT(rss_kib(broker->pid()) - rss_before, 16 * 1024);
  kafka::ListGroupsRequest list;
  auto listed = admin.try_call<kafka::ListGroupsResponse>(list, 3);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->groups.size(), 0);
  GroupMember still(broker->kafka_port(), "after");
  EXPECT_EQ(still.join(3).error, 0);
}

}  // namespace
}  // namespace spillway::testing
