// Assignment: assigned partitions and their positions (see
// consumer_assignment.h).
#include "consumer_assignment.h"

#include <algorithm>

namespace spillway::consumer_internal {

Status Assignment::add(std::string_view topic, std::span<const int32_t> partitions,
                       int32_t partition_count) {
  std::vector<int32_t> wanted(partitions.begin(), partitions.end());
  if (wanted.empty()) {
    for (int32_t p = 0; p < partition_count; ++p) wanted.push_back(p);
  }
  for (int32_t p : wanted) {
    if (p < 0 || p >= partition_count) {
      return Status(ErrorCode::kUnknownPartition, "topic '" + std::string(topic) + "' has " +
                                                      std::to_string(partition_count) +
                                                      " partitions, not " + std::to_string(p + 1));
    }
  }
  for (int32_t p : wanted) {
    if (!find(topic, PartitionId(p))) {
      partitions_.push_back({.topic = std::string(topic),
                             .partition = PartitionId(p),
                             .position = Position::committed()});
    }
  }
  std::sort(partitions_.begin(), partitions_.end(),
            [](const AssignedPartition& a, const AssignedPartition& b) {
              return a.topic != b.topic ? a.topic < b.topic : a.partition < b.partition;
            });
  return Status::Ok();
}

void Assignment::remove(std::string_view topic, PartitionId partition) {
  std::erase_if(partitions_, [&](const AssignedPartition& a) {
    return a.topic == topic && a.partition == partition;
  });
}

AssignedPartition* Assignment::find(std::string_view topic, PartitionId partition) {
  for (AssignedPartition& a : partitions_) {
    if (a.topic == topic && a.partition == partition) return &a;
  }
  return nullptr;
}

const AssignedPartition* Assignment::find(std::string_view topic, PartitionId partition) const {
  return const_cast<Assignment*>(this)->find(topic, partition);
}

Result<AssignedPartition*> Assignment::get(std::string_view topic, PartitionId partition) {
  if (AssignedPartition* a = find(topic, partition)) return a;
  return Status(ErrorCode::kUnknownPartition,
                std::string(topic) + "/" + std::to_string(partition.value()) + " is not assigned");
}

}  // namespace spillway::consumer_internal
