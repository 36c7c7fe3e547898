// Truncation by leader epoch (KIP-101, KIP-279), the follower's side: after
// every epoch change the follower asks the leader where the follower's
// latest epoch ends on the leader (LeaderEpochEnd, Kafka's
// OffsetForLeaderEpoch), truncates, and repeats until they agree. Never to
// the high watermark: a follower's HW may lag records the new leader's ISR
// acknowledged (KIP-101 scenario 1). Pure: the caller owns the log and the
// epoch cache and applies each step.
#pragma once

#include <utility>
#include <vector>

#include "spillway/common/ids.h"
#include "spillway/storage/leader_epoch_cache.h"

namespace spillway::broker::replication {

// One answer's consequence.
struct TruncationStep {
  Offset truncate_to;  // truncate the log (and epoch cache) here; == log end: nothing to remove
  // True: the logs agree below truncate_to; fetch from there. False:
  // truncate, then ask again for the (now older) latest epoch.
  bool done = false;
};

// The largest epoch <= `requested` in `entries` and where it ends (the
// next entry's start, or `log_end` for the latest); {-1, -1} when
// `requested` is older than every entry. LeaderEpochCache::end_offset_for
// over a plain vector.
std::pair<LeaderEpoch, Offset> epoch_end_offset(const std::vector<storage::EpochEntry>& entries,
                                                LeaderEpoch requested, Offset log_end);

// The epoch to ask the leader about: the follower's latest
// (LeaderEpoch(-1) when its cache is empty: nothing to ask, a follower with
// no epoch has no batch stamped by a leader, truncate to its log start).
LeaderEpoch epoch_to_ask(const std::vector<storage::EpochEntry>& entries);

// The leader answered (leader_epoch, leader_end) to "where does epoch E
// end" for the follower's latest epoch E (`entries`, its log
// [log_start, log_end)):
//  - leader_epoch is one the follower has: the logs agree up to
//    min(leader_end, that epoch's end here, log_end): done;
//  - leader_epoch is one the follower does not have (the leader's largest
//    epoch <= E is older than E and the follower skipped it): truncate to
//    where the follower's largest epoch below it ends, not done (ask again);
//  - the leader has no epoch <= E ({-1, -1}): nothing the follower has can
//    be shown to match, so truncate to log_start (the follower then fetches
//    from the leader's log start): done.
// Every step that is not done removes the latest epoch, so it ends.
TruncationStep next_truncation(const std::vector<storage::EpochEntry>& entries, Offset log_start,
                               Offset log_end, LeaderEpoch leader_epoch, Offset leader_end);

}  // namespace spillway::broker::replication
