// Consumer groups on the native protocol against a broker in the test
// process (EmbeddedBroker): in-process Consumer::subscribe members share a
// topic's partitions with either assignor, a third member's arrival and a
// member's close rebalance them, and a member dropped for not polling
// rejoins. Moved from tests/integration/consumer_group_test.cc, which keeps
// the tests that kill the CLI member or restart the broker process.
//
// No wall-clock assertions: the waits are for observed state; their
// deadline only turns a hang into a failure.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "consumer_group_members.h"
#include "spillway/testing/embedded_broker.h"

namespace spillway::testing {
namespace {

using std::chrono::milliseconds;
using namespace group_members;

class ConsumerGroup : public ::testing::Test {
 protected:
  void SetUp() override {
    // Short sessions; no wait for more members before a first rebalance
    // (the embedded broker's default).
    auto broker = EmbeddedBroker::start({.cores = 2,
                                         .topics = {{.name = kTopic, .partitions = kPartitions}},
                                         .group_min_session_timeout = milliseconds(100)});
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(broker).value();
    address_ = broker_->native_address();
  }

  std::unique_ptr<EmbeddedBroker> broker_;
  std::string address_;
  Observed observed_;
};

// Both assignors: range (eager: everything revoked at every rebalance) and
// cooperative-sticky (only what moves).
class ConsumerGroupAssignors : public ConsumerGroup,
                               public ::testing::WithParamInterface<GroupAssignor> {};

TEST_P(ConsumerGroupAssignors, MembersShareThePartitionsAndAThirdRebalancesThem) {
  ASSERT_NO_FATAL_FAILURE(produce(address_, 0, 600));
  Member a(1, address_, observed_, GetParam());
  Member b(2, address_, observed_, GetParam());
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 2, kPartitions, 3); }));
  Member c(3, address_, observed_, GetParam());
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 3, kPartitions, 2); }));
  ASSERT_NO_FATAL_FAILURE(produce(address_, 600, 1'200));
  EXPECT_TRUE(observed_.wait_for([&] { return observed_.processed.size() == 1'200; }));
  // One leaves (close): the others take its partitions.
  c.stop();
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 2, kPartitions, 3); }));
}

INSTANTIATE_TEST_SUITE_P(Assignors, ConsumerGroupAssignors,
                         ::testing::Values(GroupAssignor::kRange,
                                           GroupAssignor::kCooperativeSticky),
                         [](const auto& info) {
                           return info.param == GroupAssignor::kRange ? "Range"
                                                                      : "CooperativeSticky";
                         });

// A member that does not poll through a rebalance is dropped when the
// rebalance timeout runs out; the other takes everything. When it polls
// again it finds itself unknown, gives up what it held (the listener's
// revoke) and joins afresh, and the two share the partitions again.
TEST_F(ConsumerGroup, AMemberDroppedForNotPollingRejoins) {
  ASSERT_NO_FATAL_FAILURE(produce(address_, 0, 600));
  const milliseconds rebalance(1'000);
  Member a(1, address_, observed_, GroupAssignor::kCooperativeSticky, rebalance);
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 1, kPartitions); }));
  a.pause(true);
  {
    std::lock_guard lock(observed_.mu);
    observed_.assignment.erase(1);  // what it reports again once it polls
  }
  Member b(2, address_, observed_, GroupAssignor::kCooperativeSticky, rebalance);
  EXPECT_TRUE(observed_.wait_for([&] {
    return observed_.assignment.count(2) && observed_.assignment[2].size() == kPartitions;
  }));
  a.pause(false);
  EXPECT_TRUE(observed_.wait_for([&] { return shares(observed_, 2, kPartitions, 3); }));
  ASSERT_NO_FATAL_FAILURE(produce(address_, 600, 1'200));
  EXPECT_TRUE(observed_.wait_for([&] { return observed_.processed.size() == 1'200; }));
}

}  // namespace
}  // namespace spillway::testing
