// LeaderEpochCache: which leader epoch started at which offset, for one
// partition replica, kept durably beside the log (file
// "leader-epoch-checkpoint" in the partition's directory, written
// atomically through the FileSystem seam: temp, fsync, rename, directory
// fsync). Kafka's leader-epoch file, and what truncation by leader epoch
// (KIP-101, KIP-279) reads: a follower asks the leader where its latest
// epoch ends and truncates there, never to the high watermark.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spillway/common/ids.h"
#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::storage {

struct EpochEntry {
  LeaderEpoch epoch;
  Offset start_offset;
};

class LeaderEpochCache {
 public:
  static constexpr char kFileName[] = "leader-epoch-checkpoint";

  // Loads `dir`/leader-epoch-checkpoint (absent = empty). A damaged file is
  // an error (kCorruptMessage): the caller rebuilds it from the batches.
  static Result<std::unique_ptr<LeaderEpochCache>> open(FileSystem& fs, std::string dir);

  // Records that `epoch` starts at `start_offset`. Ignored when `epoch` is
  // not newer than the latest; entries whose start is >= start_offset and
  // whose epoch is older are dropped first (they were truncated away).
  // Persisted before it returns.
  Status assign(LeaderEpoch epoch, Offset start_offset);

  // The latest epoch, or LeaderEpoch(-1) when empty.
  LeaderEpoch latest_epoch() const;

  // Kafka's endOffsetFor: the largest epoch <= `requested` this replica has,
  // and the offset where it ends (the start of the next epoch, or
  // `log_end` for the latest). {-1, -1} when `requested` is older than
  // every entry (UNDEFINED).
  std::pair<LeaderEpoch, Offset> end_offset_for(LeaderEpoch requested, Offset log_end) const;

  // After the log was truncated to `end`: drops entries starting at or
  // after it. Persisted.
  Status truncate_from_end(Offset end);
  // After retention moved the log start to `start`: the entry covering it
  // now starts there; older ones go. Persisted.
  Status truncate_from_start(Offset start);

  const std::vector<EpochEntry>& entries() const { return entries_; }

 private:
  LeaderEpochCache(FileSystem& fs, std::string dir);
  Status persist();
  FileSystem& fs_;
  std::string dir_;
  std::vector<EpochEntry> entries_;
};

}  // namespace spillway::storage
