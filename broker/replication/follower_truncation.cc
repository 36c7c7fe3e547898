// Truncation by leader epoch: one step of the follower's loop.
#include "replication/follower_truncation.h"

#include <algorithm>

namespace spillway::broker::replication {

std::pair<LeaderEpoch, Offset> epoch_end_offset(const std::vector<storage::EpochEntry>& entries,
                                                LeaderEpoch requested, Offset log_end) {
  for (size_t i = entries.size(); i-- > 0;) {
    if (entries[i].epoch <= requested) {
      const Offset end = i + 1 < entries.size() ? entries[i + 1].start_offset : log_end;
      return {entries[i].epoch, end};
    }
  }
  return {LeaderEpoch(-1), kNoOffset};
}

LeaderEpoch epoch_to_ask(const std::vector<storage::EpochEntry>& entries) {
  return entries.empty() ? LeaderEpoch(-1) : entries.back().epoch;
}

TruncationStep next_truncation(const std::vector<storage::EpochEntry>& entries, Offset log_start,
                               Offset log_end, LeaderEpoch leader_epoch, Offset leader_end) {
  if (leader_epoch < LeaderEpoch(0) || leader_end < Offset(0)) {
    return TruncationStep{.truncate_to = std::min(log_start, log_end), .done = true};
  }
  const auto [epoch, end] = epoch_end_offset(entries, leader_epoch, log_end);
  if (epoch < LeaderEpoch(0)) {
    // Every epoch here is newer than the leader's answer: none of it is the
    // leader's.
    return TruncationStep{.truncate_to = std::min(log_start, log_end), .done = true};
  }
  if (epoch != leader_epoch) {
    // The follower never saw the leader's epoch: what it has past its own
    // older epoch's end is not the leader's; ask again for that epoch.
    return TruncationStep{.truncate_to = std::min(end, log_end), .done = false};
  }
  return TruncationStep{.truncate_to = std::min({leader_end, end, log_end}), .done = true};
}

}  // namespace spillway::broker::replication
