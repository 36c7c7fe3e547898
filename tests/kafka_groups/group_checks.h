// The end-of-test checks of the consumer-group tests: the group's committed
// offsets against the partitions' log end offsets, and the union of what
// the members processed against what was produced. Also the polling wait
// the tests use (a deadline that fails a test instead of hanging it; no
// test asserts how long anything took).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "member_process.h"

namespace spillway::testing {

// Polls `condition` every 100 ms until it holds (true) or `guard` passes
// (false).
bool wait_until(std::chrono::milliseconds guard, const std::function<bool()>& condition);

// Offsets of partitions 0..partitions-1 of `topic`: the high watermarks
// (log end offsets), and `group`'s committed offsets (-1 when none), both
// asked through librdkafka; empty when the broker did not answer.
std::vector<int64_t> log_end_offsets(const std::string& bootstrap, const std::string& topic,
                                     int32_t partitions);
std::vector<int64_t> committed_offsets(const std::string& bootstrap, const std::string& group,
                                       const std::string& topic, int32_t partitions);

// A group as librdkafka's admin API (DescribeConsumerGroups) describes it.
struct DescribedMember {
  std::string member_id;
  std::string instance_id;  // "" when dynamic
  std::set<int32_t> partitions;
};
struct DescribedGroup {
  std::string error;  // "" when described
  std::string state;  // "Stable", "Empty", ... (librdkafka's names)
  std::string assignor;
  std::vector<DescribedMember> members;
};
DescribedGroup describe_group(const std::string& bootstrap, const std::string& group);

// Checks the records files of `members` (their union) against the log:
// every offset below `log_end[p]` of every partition was processed by some
// member, the same offset always with the same key and value, and every
// key-I/value-I for I < `produced` is among them. Returns "" when all
// hold, otherwise what is missing (the first few).
std::string check_processed(const std::vector<const MemberProcess*>& members,
                            const std::vector<int64_t>& log_end, int produced);

}  // namespace spillway::testing
