// What a client-side partition assignor works on: the group's members with
// their subscriptions (and, for cooperative assignors, what each owns now),
// and the partition count of every subscribed topic. Assignors are pure
// functions of these (range_assignor.h, cooperative_sticky_assignor.h), so
// they are tested without a broker; the group leader runs the one the group
// chose and sends the result through SyncGroup.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spillway/topic_partition.h"

namespace spillway::assignors {

using spillway::TopicPartition;

struct MemberSubscription {
  std::string member_id;
  std::vector<std::string> topics;
  std::vector<TopicPartition> owned;  // cooperative: what it holds now
};

// member id -> its partitions, sorted. Every member of the input has an
// entry (possibly empty).
using GroupAssignment = std::map<std::string, std::vector<TopicPartition>>;
// topic -> partition count; a subscribed topic missing here has no
// partitions to assign (not created yet).
using PartitionCounts = std::map<std::string, int32_t>;

}  // namespace spillway::assignors
