// Consumer groups across broker restarts, over the raw Kafka wire: a Stable
// group comes back Stable with its generation, members and assignments
// after a clean stop and after SIGKILL; members that come back carry on,
// the others time out; a corrupt group file is skipped; and a stopping
// broker answers parked joins (NOT_COORDINATOR) instead of holding them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "broker_process.h"
#include "kafka_group_member.h"
#include "spillway/common/kafka/describe_groups.h"

namespace spillway::testing {
namespace {

namespace errors = kafka::errors;

class KafkaGroupRestart : public ::testing::TestWithParam<int> {
 protected:
  // Starts a broker on dir_; `delay_ms` is the initial rebalance delay.
  void start(int delay_ms = 0) {
    BrokerProcess::Options options;
    options.default_data_dir = false;
    options.args = {"--data-dir",
                    dir_.path().string(),
                    "--group-initial-rebalance-delay-ms",
                    std::to_string(delay_ms),
                    "--group-min-session-timeout-ms",
                    "100"};
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
  }

  std::unique_ptr<GroupMember> member(std::string group = "g") {
    auto m = std::make_unique<GroupMember>(broker_->kafka_port(), std::move(group));
    EXPECT_TRUE(m->connected());
    return m;
  }

  // Polls (every 10 ms) until the group's file exists: persistence runs on
  // a sync thread after the answer. The guard only stops a hang.
  bool wait_for_group_file() {
    const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < guard) {
      if (std::filesystem::exists(dir_.path() / "groups" / "67.group")) return true;  // "g"
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  struct Described {
    std::string state;
    std::vector<std::pair<std::string, std::string>> members;  // id, assignment
  };
  Described describe(std::string_view group) {
    KafkaWireClient client(broker_->kafka_port());
    std::vector<std::string_view> names = {group};
    kafka::DescribeGroupsRequest r;
    r.groups = names;
    Described out;
    auto got = client.try_call<kafka::DescribeGroupsResponse>(r, 4);
    EXPECT_TRUE(got.ok()) << got.status().to_string();
    if (!got.ok()) return out;
    for (const auto& g : got->groups) {
      out.state = g.group_state;
      for (const auto& m : g.members) {
        out.members.emplace_back(std::string(m.member_id), string_of(m.member_assignment));
      }
    }
    std::sort(out.members.begin(), out.members.end());
    return out;
  }

  TempDir dir_;
  std::unique_ptr<BrokerProcess> broker_;
};

TEST_P(KafkaGroupRestart, AStableGroupComesBackWithItsMembers) {
  // Both members join within the initial delay: one generation with both,
  // and the first state written is that Stable one.
  start(/*delay_ms=*/1'000);
  auto a = member();
  auto b = member();
  a->session_timeout_ms = 10'000;
  b->session_timeout_ms = 1'000;
  a->send_join_fresh();
  b->send_join_fresh();
  JoinOutcome ja = a->read_join();
  JoinOutcome jb = b->read_join();
  ASSERT_EQ(ja.error, 0);
  ASSERT_EQ(jb.error, 0);
  ASSERT_EQ(ja.generation, 1);
  GroupMember& leader = ja.leader == a->member_id() ? *a : *b;
  GroupMember& follower = ja.leader == a->member_id() ? *b : *a;
  follower.send_sync();
  ASSERT_EQ(leader.sync({{a->member_id(), "pa"}, {b->member_id(), "pb"}}).error, 0);
  ASSERT_EQ(follower.read_sync().error, 0);
  const Described before = describe("g");
  ASSERT_EQ(before.state, "Stable");
  ASSERT_TRUE(wait_for_group_file());

  ASSERT_TRUE(broker_->stop(GetParam()).ok());
  start();
  EXPECT_EQ(describe("g").state, "Stable");
  EXPECT_EQ(describe("g").members, before.members);

  // A comes back (a new connection, the same member id and generation) and
  // carries on; B does not, and its session runs out.
  auto a2 = member();
  a2->set_member_id(a->member_id());
  a2->set_generation(1);
  EXPECT_EQ(a2->sync().assignment, "pa");
  const int16_t e = a2->heartbeat_until_not(0);
  EXPECT_EQ(e, errors::kRebalanceInProgress);
  JoinOutcome again = a2->join();
  EXPECT_EQ(again.error, 0);
  EXPECT_EQ(again.generation, 2);
  EXPECT_EQ(again.members.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(StopSignals, KafkaGroupRestart, ::testing::Values(SIGTERM, SIGKILL),
                         [](const auto& info) {
                           return std::string(info.param == SIGKILL ? "Sigkill" : "Sigterm");
                         });

TEST(KafkaGroupFiles, ACorruptGroupFileIsSkipped) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "groups");
  {
    std::ofstream(dir.path() / "groups" / "6263.group") << "SPWG garbage that is no group";
    std::ofstream(dir.path() / "groups" / "6364.group");  // empty
  }
  BrokerProcess::Options options;
  options.default_data_dir = false;
  options.args = {"--data-dir", dir.path().string(), "--group-initial-rebalance-delay-ms", "0"};
  auto broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  EXPECT_NE((*broker)->log().find("skipping group file"), std::string::npos) << (*broker)->log();
  GroupMember m((*broker)->kafka_port(), "bc");
  m.protocols = {{"range", "x"}};
  EXPECT_EQ(m.join(3).error, 0);
}

TEST(KafkaGroupShutdown, AParkedJoinIsAnsweredWhenTheBrokerStops) {
  BrokerProcess::Options options;
  options.args = {"--group-initial-rebalance-delay-ms", "0"};
  auto broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  GroupMember a((*broker)->kafka_port(), "g");
  ASSERT_EQ(a.join_fresh().error, 0);
  ASSERT_EQ(a.sync({}).error, 0);
  // B's join waits for A to rejoin (up to the 60 s rebalance timeout).
  GroupMember b((*broker)->kafka_port(), "g");
  b.rebalance_timeout_ms = 60'000;
  b.send_join_fresh();
  a.heartbeat_until_not(0);
  Result<ProcessExit> exit = (*broker)->stop(SIGTERM);
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->exit_code, 0);
  EXPECT_EQ(b.read_join().error, errors::kNotCoordinator);
}

}  // namespace
}  // namespace spillway::testing
