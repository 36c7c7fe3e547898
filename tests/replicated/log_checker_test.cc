// The fault runs' checker on its own (no cluster): an acknowledged record is
// found at its offset, or, acknowledged without one (librdkafka's -1001 for
// a record implicitly acked by a later batch of the idempotent producer), by
// its value in its partition; a record that is nowhere is lost.
#include "log_checker.h"

#include <gtest/gtest.h>

namespace spillway::testing {
namespace {

TopicContents stored() {
  TopicContents c;
  c.partitions[0][0] = {"k0", "k0:0"};
  c.partitions[0][1] = {"k0", "k0:1"};
  c.partitions[1][0] = {"k1", "k1:2"};
  return c;
}

TEST(LogChecker, ARecordAcknowledgedWithoutAnOffsetIsFoundByValueInItsPartition) {
  const std::vector<AckedRecord> acked = {
      {.partition = 0, .offset = -1001, .key = "k0", .value = "k0:0"},
      {.partition = 0, .offset = 1, .key = "k0", .value = "k0:1"}};
  const CheckResult r = check_acked(acked, stored());
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_EQ(r.lost, 0);
}

TEST(LogChecker, ARecordAcknowledgedWithoutAnOffsetThatIsNowhereOrElsewhereIsLost) {
  const std::vector<AckedRecord> acked = {
      {.partition = 0, .offset = -1001, .key = "k0", .value = "k0:9"},   // nowhere
      {.partition = 0, .offset = -1001, .key = "k1", .value = "k1:2"}};  // in partition 1
  const CheckResult r = check_acked(acked, stored());
  EXPECT_EQ(r.lost, 2);
}

TEST(LogChecker, ARecordAtAnotherOffsetIsLost) {
  const std::vector<AckedRecord> acked = {
      {.partition = 0, .offset = 1, .key = "k0", .value = "k0:0"}};
  EXPECT_EQ(check_acked(acked, stored()).lost, 1);
}

}  // namespace
}  // namespace spillway::testing
