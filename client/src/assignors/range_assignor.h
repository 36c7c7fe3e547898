// Kafka's "range" assignor: per topic, the members subscribed to it sorted
// by member id, the partitions split into contiguous ranges, the first
// (partitions % members) members taking one more. Eager: every member gives
// up everything before each rebalance.
#pragma once

#include <string_view>
#include <vector>

#include "assignor.h"

namespace spillway::assignors {

inline constexpr std::string_view kRangeAssignor = "range";

GroupAssignment range_assign(const std::vector<MemberSubscription>& members,
                             const PartitionCounts& partitions);

}  // namespace spillway::assignors
