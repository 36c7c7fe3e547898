// A consumer group's committed offsets: the FetchOffsets, CommitOffsets and
// CommitMemberOffsets control calls (docs/protocol.md), each one round trip on a Channel.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "spillway/common/ids.h"
#include "spillway/common/status.h"
#include "spillway/consumer.h"

namespace spillway::wire {

class Channel;

struct CommittedOffset {
  PartitionId partition{0};
  Offset offset = kNoOffset;  // the next offset to consume; kNoOffset when none is committed
  Status error;               // the broker's error for this partition
};

// The offsets `group` committed for `partitions` of `topic`, one entry per
// partition the broker answered for. Errors: the call's, kCorruptMessage
// for an answer that does not decode.
Result<std::vector<CommittedOffset>> fetch_committed(Channel& channel, std::string_view group,
                                                     std::string_view topic,
                                                     std::span<const PartitionId> partitions);

// A group member's identity for a commit (CommitMemberOffsets).
struct CommitMember {
  std::string_view member_id;
  int32_t generation = -1;
};

// Commits `offsets` for `group`; durable when it returns ok. Without
// `member` a "simple" commit (CommitOffsets), which the broker refuses with
// kUnknownMember while the group has members; with it the member's
// (CommitMemberOffsets), refused with kIllegalGeneration, kUnknownMember,
// kRebalanceInProgress or kFencedInstanceId unless the member is in the
// group's current generation. Errors: the call's, or the first partition
// the broker refused ("t/p: why").
Status commit_offsets(Channel& channel, std::string_view group,
                      std::span<const TopicPartitionOffset> offsets,
                      std::optional<CommitMember> member = std::nullopt);

}  // namespace spillway::wire
