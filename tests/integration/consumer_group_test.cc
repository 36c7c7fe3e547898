// Consumer groups on the native protocol, end to end against the real
// broker: members that subscribe (Consumer::subscribe, in-process) and a
// `spillway consume --group` process share a topic's partitions, a third
// member's arrival rebalances them, a member killed with SIGKILL is taken
// over after its session timeout, the broker restarts in the middle, and
// every one of 20,000 keyed records is processed at least once. The tests
// that need no broker process of their own (both assignors, a member dropped
// for not polling) are in tests/embedded/consumer_group_test.cc.
//
// No wall-clock assertions: the waits below are for observed state (a
// condition variable the members notify after every poll); their deadline
// only turns a hang into a failure.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "consumer_group_members.h"
#include "spillway/admin.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

using std::chrono::milliseconds;
using namespace group_members;

// `spillway consume --group` in the background, its output in a file.
class CliMember {
 public:
  CliMember(const std::string& address, const std::filesystem::path& output,
            milliseconds session_timeout = kSession) {
    const std::string session = std::to_string(session_timeout.count());
    std::vector<std::string> args = {cli_binary(), "consume",  kTopic,  "--group",
                                     kGroup,       "--broker", address, "--session-timeout-ms",
                                     session};
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(fd, 1);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~CliMember() { kill(SIGKILL); }
  // Sends `signal` and returns the wait status once the process ended.
  int kill(int signal) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, signal);
    int status = -1;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
};

// Measured, not asserted (issue 14's closing note): from a member's end to
// the others holding its partitions again.
void report_takeover(const char* what, std::chrono::steady_clock::time_point since,
                     milliseconds session) {
  const auto ms =
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - since).count();
  ::testing::Test::RecordProperty("takeover_ms", std::to_string(ms));
  std::printf("[ measured ] partitions taken over %s in %lld ms (session timeout %lld ms)\n", what,
              static_cast<long long>(ms), static_cast<long long>(session.count()));
}

class ConsumerGroup : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_ = start_broker_on(data_, kGroupArgs);
    ASSERT_NE(broker_, nullptr);
    address_ = broker_->address();
    auto admin = Admin::connect(address_);
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    TopicOptions topic;
    topic.partitions = kPartitions;
    ASSERT_TRUE(admin->create_topic(kTopic, topic).ok());
  }

  std::vector<std::string> args_with_listen() {
    std::vector<std::string> args = kGroupArgs;
    args.push_back("--listen");
    args.push_back(address_);
    return args;
  }

  // Short sessions, and no wait for more members before a first rebalance.
  const std::vector<std::string> kGroupArgs = {"--group-min-session-timeout-ms", "100",
                                               "--group-initial-rebalance-delay-ms", "0"};
  TempDir dir_;
  const std::filesystem::path data_ = dir_.path() / "data";
  std::unique_ptr<BrokerProcess> broker_;
  std::string address_;
  Observed observed_;
};

TEST_F(ConsumerGroup, KilledMemberAndBrokerRestartLoseNothing) {
  constexpr int kRecords = 20'000;
  const std::filesystem::path cli_output = dir_.path() / "cli.out";
  ASSERT_NO_FATAL_FAILURE(produce(address_, 0, 5'000));
  Member a(1, address_, observed_);
  Member b(2, address_, observed_);
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 2, kPartitions); }));
  ASSERT_NO_FATAL_FAILURE(produce(address_, 5'000, 10'000));

  // The CLI joins: the in-process members keep four partitions between
  // them, so it has the other two.
  CliMember cli(address_, cli_output);
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 2, 4, 2); }));
  ASSERT_NO_FATAL_FAILURE(produce(address_, 10'000, 12'500));
  const auto killed = std::chrono::steady_clock::now();
  cli.kill(SIGKILL);
  // Its session runs out and the others take its partitions over.
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 2, kPartitions); }));
  report_takeover("after SIGKILL", killed, kSession);
  ASSERT_NO_FATAL_FAILURE(produce(address_, 12'500, 15'000));

  // The broker restarts; the members ride it out and carry on.
  ASSERT_TRUE(broker_->stop(SIGTERM).ok());
  broker_ = start_broker_on(data_, args_with_listen());
  ASSERT_NE(broker_, nullptr);
  ASSERT_NO_FATAL_FAILURE(produce(address_, 15'000, kRecords));

  // Every record was processed: by the CLI before it died, or by a member.
  std::set<std::string> by_cli;
  {
    std::ifstream in(cli_output);
    for (std::string line; std::getline(in, line);) by_cli.insert(line);
  }
  const auto all_processed = [&] {
    for (int i = 0; i < kRecords; ++i) {
      const std::string v = value_of(i);
      if (!observed_.processed.count(v) && !by_cli.count(v)) return false;
    }
    return true;
  };
  EXPECT_TRUE(observed_.wait_for(all_processed))
      << observed_.processed.size() << " by members, " << by_cli.size() << " by the CLI";
  a.stop();
  b.stop();

  // What the members committed, before and after the restart, is the end
  // of every partition: consumption went on from the committed offsets.
  ConsumerOptions o;
  o.bootstrap = address_;
  o.group_id = kGroup;
  auto checker = Consumer::create(o);
  ASSERT_TRUE(checker.ok());
  auto described = (*checker)->describe(kTopic);
  ASSERT_TRUE(described.ok());
  for (const PartitionDescription& p : described->partitions) {
    auto committed = (*checker)->committed(kTopic, p.partition);
    ASSERT_TRUE(committed.ok()) << committed.status().to_string();
    EXPECT_EQ(*committed, p.high_watermark) << "partition " << p.partition;
  }
}

// SIGTERM: the CLI commits what it printed and leaves the group, so the
// other member takes its partitions over at once (its session timeout is
// far longer than the wait) and starts exactly after what the CLI printed.
TEST_F(ConsumerGroup, TerminatedCliCommitsAndLeaves) {
  const std::filesystem::path cli_output = dir_.path() / "cli.out";
  ASSERT_NO_FATAL_FAILURE(produce(address_, 0, 3'000));
  Member a(1, address_, observed_);
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 1, kPartitions); }));
  CliMember cli(address_, cli_output, milliseconds(120'000));
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 1, 3, 3); }));
  ASSERT_NO_FATAL_FAILURE(produce(address_, 3'000, 6'000));
  const auto terminated = std::chrono::steady_clock::now();
  const int status = cli.kill(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 1, kPartitions); }));
  report_takeover("after SIGTERM (LeaveGroup)", terminated, milliseconds(120'000));

  std::set<std::string> by_cli;
  {
    std::ifstream in(cli_output);
    for (std::string line; std::getline(in, line);) by_cli.insert(line);
  }
  EXPECT_TRUE(observed_.wait_for([&] {
    for (int i = 0; i < 6'000; ++i) {
      const std::string v = value_of(i);
      if (!observed_.processed.count(v) && !by_cli.count(v)) return false;
    }
    return true;
  }));
  // Every record once: the hand-overs in both directions went through
  // commits of exactly what was processed.
  std::lock_guard lock(observed_.mu);
  size_t twice = 0;
  for (const std::string& v : by_cli) twice += observed_.processed.count(v);
  EXPECT_EQ(twice, 0u);
  EXPECT_EQ(observed_.processed.size() + by_cli.size(), 6'000u);
}

// The broker is killed (-9) just as a third member's join starts a
// rebalance: after the restart every member rejoins, the three share the
// partitions, and consumption continues from the committed offsets.
TEST_F(ConsumerGroup, BrokerKilledDuringARebalance) {
  constexpr int kTotal = 6'000;
  ASSERT_NO_FATAL_FAILURE(produce(address_, 0, 3'000));
  Member a(1, address_, observed_);
  Member b(2, address_, observed_);
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 2, kPartitions, 3); }));
  Member c(3, address_, observed_);
  ASSERT_TRUE(broker_->stop(SIGKILL).ok());
  broker_ = start_broker_on(data_, args_with_listen());
  ASSERT_NE(broker_, nullptr);
  ASSERT_NO_FATAL_FAILURE(produce(address_, 3'000, kTotal));
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 3, kPartitions, 2); }));
  EXPECT_TRUE(observed_.wait_for([&] {
    for (int i = 0; i < kTotal; ++i) {
      if (!observed_.processed.count(value_of(i))) return false;
    }
    return true;
  })) << observed_.processed.size();
}

}  // namespace
}  // namespace spillway::testing
