// Kafka's "cooperative-sticky" assignor (KIP-429): a balanced assignment
// that keeps every member's owned partitions where it can, run as the
// incremental cooperative protocol's two phases:
//  1. A partition that should move from member A to member B is taken from
//     A but not yet given to B: A keeps consuming everything else, revokes
//     only the moved partitions (committing them) and rejoins at once.
//  2. In that next rebalance nobody owns the moved partitions any more, so
//     they go to B.
// No partition is ever assigned to two members at once, and a member only
// stops consuming what actually moves.
//
// Balance: members subscribed to the same topics end within one partition
// of each other. Members keep owned partitions (still existing, subscribed,
// not claimed twice) up to their quota; the rest go one by one to the
// subscribed member with the fewest.
#pragma once

#include <string_view>
#include <vector>

#include "assignor.h"

namespace spillway::assignors {

inline constexpr std::string_view kCooperativeStickyAssignor = "cooperative-sticky";

GroupAssignment cooperative_sticky_assign(const std::vector<MemberSubscription>& members,
                                          const PartitionCounts& partitions);

}  // namespace spillway::assignors
