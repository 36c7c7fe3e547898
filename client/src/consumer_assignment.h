// Assignment: the partitions a Consumer reads and where it reads each from.
//
// Owns: one entry per assigned partition, sorted by topic then partition,
// with its position — the next offset to hand out, or a symbolic position
// still to be resolved (the group's committed offset, the log start, the
// log end), which the consumer turns into an offset before it fetches.
//
// Invariants: no partition twice; the order is stable between assign() and
// unassign(), so a Fetch request lists the partitions in it and an index
// into partitions() stays valid until the next add() or clear().
//
// Concurrency: the consumer's thread only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::consumer_internal {

// Position values besides a real offset (>= 0).
inline constexpr int64_t kResolveCommitted = -1;  // committed offset, else the reset policy
inline constexpr int64_t kResolveEarliest = -2;   // the log start
inline constexpr int64_t kResolveLatest = -3;     // the log end (high watermark)

struct AssignedPartition {
  std::string topic;
  int32_t partition = 0;
  int64_t position = kResolveCommitted;
};

class Assignment {
 public:
  // Adds `partitions` of `topic` (every one of its `partition_count` when
  // empty), each starting at kResolveCommitted; already assigned ones keep
  // their position. Error: kUnknownPartition for one outside the topic,
  // with nothing added.
  Status add(std::string_view topic, std::span<const int32_t> partitions, int32_t partition_count);
  void clear() { partitions_.clear(); }
  bool empty() const noexcept { return partitions_.empty(); }

  // Sorted by topic, then partition.
  std::span<AssignedPartition> partitions() noexcept { return partitions_; }
  std::span<const AssignedPartition> partitions() const noexcept { return partitions_; }
  // The entry of `topic`/`partition`, or null.
  AssignedPartition* find(std::string_view topic, int32_t partition);
  const AssignedPartition* find(std::string_view topic, int32_t partition) const;
  // The same, or kUnknownPartition "t/p is not assigned".
  Result<AssignedPartition*> get(std::string_view topic, int32_t partition);

  // Calls fn(topic, span of its entries) for each run of one topic's
  // partitions, in order.
  template <typename Fn>
  void for_each_topic(Fn&& fn) {
    std::span<AssignedPartition> all = partitions_;
    for (std::size_t i = 0; i < all.size();) {
      std::size_t j = i;
      while (j < all.size() && all[j].topic == all[i].topic) ++j;
      fn(std::string_view(all[i].topic), all.subspan(i, j - i));
      i = j;
    }
  }

 private:
  std::vector<AssignedPartition> partitions_;
};

}  // namespace spillway::consumer_internal
