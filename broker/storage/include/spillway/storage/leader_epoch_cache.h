// LeaderEpochCache: which leader epoch started at which offset, for one
// partition replica, kept durably beside the log (file
// "leader-epoch-checkpoint" in the partition's directory, written
// atomically through the FileSystem seam: temp, fsync, rename, directory
// fsync). Kafka's leader-epoch file, and what truncation by leader epoch
// (KIP-101, KIP-279) reads: a follower asks the leader where its latest
// epoch ends and truncates there, never to the high watermark. File format:
// docs/replication-storage.md.
//
// Entries are kept with epochs and start offsets both strictly increasing.
// Not thread-safe: used on the partition's owner core, like its log.
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

class PartitionLog;

struct EpochEntry {
  LeaderEpoch epoch;
  Offset start_offset;
  friend bool operator==(const EpochEntry&, const EpochEntry&) = default;
};

class LeaderEpochCache {
 public:
  static constexpr char kFileName[] = "leader-epoch-checkpoint";
  // More entries than this are refused on load; assign() drops the oldest
  // beyond it (one entry per leader change: far more than a partition sees).
  static constexpr std::size_t kMaxEntries = 65536;

  // Loads `dir`/leader-epoch-checkpoint (absent = empty). A damaged file is
  // an error (kCorruptMessage): the caller rebuilds it from the batches.
  static Result<std::unique_ptr<LeaderEpochCache>> open(FileSystem& fs, std::string dir);

  // The entries from the partition leader epochs of the log's batches (an
  // entry wherever the epoch changes; batches with a negative epoch are
  // skipped), persisted. For a missing or damaged file.
  static Result<std::unique_ptr<LeaderEpochCache>> rebuild(PartitionLog& log);

  // What a partition does at start: open() the file beside `log`; rebuild()
  // when it is damaged, or missing while the log holds batches; then drop
  // entries outside the log (truncate_from_end(log end), and
  // truncate_from_start(log start)), which a crash between a log change and
  // the file's update leaves.
  static Result<std::unique_ptr<LeaderEpochCache>> open_or_rebuild(PartitionLog& log);

  // Records that `epoch` starts at `start_offset` (Kafka's assign). Nothing
  // changes when `epoch` is negative, or is the latest epoch and starts no
  // earlier than it. Otherwise entries that conflict are dropped first,
  // newest first: those whose epoch is >= `epoch` or whose start is >=
  // `start_offset` (they were truncated away, or the log went back to an
  // older epoch). Persisted before it returns when something changed.
  // kInvalidArgument for a negative start offset.
  Status assign(LeaderEpoch epoch, Offset start_offset);

  // The latest epoch, or LeaderEpoch(-1) when empty.
  LeaderEpoch latest_epoch() const;

  // Kafka's endOffsetFor (OffsetForLeaderEpoch): for the latest epoch,
  // {it, log_end}; otherwise the largest epoch <= `requested` this replica
  // has and where it ends (the start of the next epoch). When `requested`
  // is older than every entry, {requested, start of the first entry} (the
  // data before was removed; the follower truncates to what the leader
  // has). {-1, -1} (UNDEFINED) when `requested` is negative, newer than
  // the latest epoch, or the cache is empty.
  std::pair<LeaderEpoch, Offset> end_offset_for(LeaderEpoch requested, Offset log_end) const;

  // After the log was truncated to `end`: drops entries starting at or
  // after it. Persisted when something changed.
  Status truncate_from_end(Offset end);
  // After retention moved the log start to `start`: the entry covering it
  // now starts there; older ones go. Persisted when something changed.
  Status truncate_from_start(Offset start);
  // Drops every entry (the log restarted empty below its start). Persisted.
  Status clear();

  const std::vector<EpochEntry>& entries() const { return entries_; }

 private:
  LeaderEpochCache(FileSystem& fs, std::string dir);
  // Kafka's assign without the write; true when the entries changed.
  bool assign_in_memory(LeaderEpoch epoch, Offset start_offset);
  Status persist();
  FileSystem& fs_;
  std::string dir_;
  std::vector<EpochEntry> entries_;
};

}  // namespace spillway::storage
