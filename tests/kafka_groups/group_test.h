// The fixture of the consumer-group tests: a real broker on ephemeral ports
// with its own data directory (restartable on the same ports and data, for
// the kill -9 test), a 6-partition topic, member processes, a keyed
// producer, and the end-of-test check that nothing was lost.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "broker_process.h"
#include "group_checks.h"
#include "keyed_producer.h"
#include "member_process.h"

namespace spillway::testing {

inline constexpr int32_t kPartitions = 6;
inline constexpr int kRecords = 20'000;
// Hang guards: a test fails when a condition does not hold by then. None
// of them is a claim about speed.
inline constexpr std::chrono::milliseconds kGuard{90'000};
inline constexpr std::chrono::milliseconds kLongGuard{180'000};

class GroupTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts the broker on the fixture's data directory; with `same_ports`
  // on the ports of the previous start. `group_defaults` keeps the
  // broker's own group timeouts instead of the short ones of the tests.
  void start_broker(bool same_ports = false, bool group_defaults = false);
  void create_topic();

  std::string kafka() const { return broker_->kafka_address(); }

  // Options of a member of group_ with the tests' short timeouts
  // (session 6000 ms, heartbeat 1000 ms).
  MemberOptions member_options(const std::string& strategy) const;
  MemberProcess& add_member(const std::string& name, MemberOptions options);
  // Replaces the (stopped) member `name` by a new process with `options`.
  MemberProcess& restart_member(const std::string& name, MemberOptions options);
  MemberProcess& member(const std::string& name);
  std::vector<const MemberProcess*> members() const;

  // Waits until the running members' shares are non-empty, disjoint and
  // cover the topic; fails the test (with the shares) otherwise.
  void expect_shares_cover(const std::string& when);
  // Waits until, after `since_ms`, the running members consumed a record of
  // every partition of `share`; returns the ms of the last of those first
  // records, or -1 (and fails) after the guard.
  int64_t wait_consumed_again(const std::set<int32_t>& share, int64_t since_ms,
                              std::chrono::milliseconds guard = kGuard);

  // The group as DescribeConsumerGroups shows it: Stable, chosen
  // `assignor`, exactly the running members (by member id, with their
  // instance ids) and the assignment each of them reported.
  void expect_described(const std::string& assignor);
  // Waits until the records allowed so far are acknowledged and the
  // group's committed offsets reach every partition's log end offset;
  // returns the log end offsets.
  std::vector<int64_t> expect_caught_up();
  // Lets every record be produced, waits for their acknowledgements, for
  // the group's committed offsets to reach every partition's log end
  // offset, and checks that every record was processed at least once.
  void expect_nothing_lost();

  TempDir dir_;
  std::string topic_ = "orders";
  std::string group_ = "workers";
  std::unique_ptr<BrokerProcess> broker_;
  std::string native_address_;
  std::string kafka_address_;
  std::unique_ptr<KeyedProducer> producer_;
  std::vector<std::unique_ptr<MemberProcess>> members_;
};

}  // namespace spillway::testing
