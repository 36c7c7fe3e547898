// What Admin reports about consumer groups (ListGroups, DescribeGroups and
// the offsets and lag it adds), and the offset resets it performs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spillway {

struct GroupListing {
  std::string group;
  std::string protocol_type;  // "consumer"; "" for a group that only has offsets
  std::string state;          // "Empty", "PreparingRebalance", "CompletingRebalance", "Stable"
};

struct GroupTopicPartitions {
  std::string topic;
  std::vector<int32_t> partitions;
};

struct GroupMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;  // set for a static member
  std::string client_id;
  std::string client_host;
  // Its assignment, decoded from the consumer protocol; empty before the
  // group's first sync or for a protocol type other than "consumer".
  std::vector<GroupTopicPartitions> assignment;
};

// One partition the group has committed an offset for or has assigned.
struct GroupPartitionLag {
  std::string topic;
  int32_t partition = 0;
  std::string member_id;  // "" when no member has it
  std::string client_id;
  int64_t committed = -1;      // the next offset to consume; -1: none committed
  int64_t log_end_offset = 0;  // the partition's high watermark
  int64_t lag = -1;            // log_end_offset - committed; -1 when nothing is committed
};

struct GroupDescription {
  std::string group;
  std::string state;
  std::string protocol_type;
  std::string protocol;  // the chosen assignor ("range", ...); "" when none
  int32_t generation = -1;
  std::vector<GroupMember> members;
  std::vector<GroupPartitionLag> partitions;  // by topic, then partition
};

// Where reset_offsets() moves a group's offsets.
struct OffsetResetSpec {
  enum class Kind { kEarliest, kLatest, kOffset, kTimestamp };
  Kind kind = Kind::kEarliest;
  int64_t value = 0;  // the offset (kOffset) or milliseconds since the epoch (kTimestamp)

  static OffsetResetSpec earliest() { return {Kind::kEarliest, 0}; }
  static OffsetResetSpec latest() { return {Kind::kLatest, 0}; }
  static OffsetResetSpec to_offset(int64_t offset) { return {Kind::kOffset, offset}; }
  static OffsetResetSpec to_timestamp(int64_t ms) { return {Kind::kTimestamp, ms}; }
};

struct OffsetResetResult {
  int32_t partition = 0;
  int64_t old_offset = -1;  // -1: none was committed
  int64_t new_offset = 0;
};

}  // namespace spillway
