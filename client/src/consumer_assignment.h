// Assignment: the partitions a Consumer reads and where it reads each from.
//
// Owns: one entry per assigned partition, sorted by topic then partition,
// with its Position — the next offset to hand out, or a starting point
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

#include "spillway/common/ids.h"
#include "spillway/common/status.h"

namespace spillway::consumer_internal {

// Where a partition is read from: an offset, or a starting point still to
// be resolved into one before the next fetch.
class Position {
 public:
  enum class Kind : uint8_t {
    kOffset,     // offset() is the next offset to hand out
    kCommitted,  // the group's committed offset, else the reset policy
    kEarliest,   // the log start
    kLatest,     // the log end (high watermark)
  };

  static constexpr Position at(Offset offset) noexcept { return Position(Kind::kOffset, offset); }
  static constexpr Position committed() noexcept { return Position(Kind::kCommitted); }
  static constexpr Position earliest() noexcept { return Position(Kind::kEarliest); }
  static constexpr Position latest() noexcept { return Position(Kind::kLatest); }

  constexpr Kind kind() const noexcept { return kind_; }
  constexpr bool resolved() const noexcept { return kind_ == Kind::kOffset; }
  // The offset; kNoOffset while unresolved.
  constexpr Offset offset() const noexcept { return offset_; }

  friend constexpr bool operator==(Position, Position) noexcept = default;

 private:
  constexpr explicit Position(Kind kind, Offset offset = kNoOffset) noexcept
      : kind_(kind), offset_(offset) {}

  Kind kind_;
  Offset offset_;
};

struct AssignedPartition {
  std::string topic;
  PartitionId partition{0};
  Position position = Position::committed();
};

class Assignment {
 public:
  // Adds `partitions` of `topic` (every one of its `partition_count` when
  // empty), each starting at Position::committed(); already assigned ones
  // keep their position. Error: kUnknownPartition for one outside the topic,
  // with nothing added.
  Status add(std::string_view topic, std::span<const int32_t> partitions, int32_t partition_count);
  void clear() { partitions_.clear(); }
  // Drops `topic`/`partition` if assigned (a group rebalance revoked it).
  void remove(std::string_view topic, PartitionId partition);
  bool empty() const noexcept { return partitions_.empty(); }

  // Sorted by topic, then partition.
  std::span<AssignedPartition> partitions() noexcept { return partitions_; }
  std::span<const AssignedPartition> partitions() const noexcept { return partitions_; }
  // The entry of `topic`/`partition`, or null.
  AssignedPartition* find(std::string_view topic, PartitionId partition);
  const AssignedPartition* find(std::string_view topic, PartitionId partition) const;
  // The same, or kUnknownPartition "t/p is not assigned".
  Result<AssignedPartition*> get(std::string_view topic, PartitionId partition);

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
