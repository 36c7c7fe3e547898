// GroupCommitLog: a PartitionLog shared by several threads, with group commit
// for the `durable` policy. The first appender that finds no fsync running
// becomes the leader: it syncs everything written so far, outside the lock,
// while later appenders write their batches and wait; one fdatasync then
// acknowledges them all. (On the broker's owner core the same protocol runs
// on begin_flush/run_flush/finish_flush without threads; see partition_log.h.)
//
// With max_concurrent_syncs > 1 a new leader may start its fdatasync while
// earlier ones still run, as long as it covers more than they do; file
// systems such as ext4 merge concurrent fsyncs into one journal commit, so a
// little pipelining can beat strictly one-at-a-time syncing. Out-of-order
// completions are fine: each sync covers everything written before it began.
//
// Thread-safe. The wrapped log must outlive this object and must not be used
// directly while it exists.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "spillway/storage/partition_log.h"

namespace spillway::storage {

class GroupCommitLog {
 public:
  // Precondition: max_concurrent_syncs >= 1.
  explicit GroupCommitLog(PartitionLog& log, int max_concurrent_syncs = 1)
      : log_(log), max_syncs_(max_concurrent_syncs) {}

  // PartitionLog::append, and under `durable` returns only once an fdatasync
  // covers the batch. A failed fsync fails every append it covered (their
  // batches were written but are not acknowledged) and the log turns
  // read-only.
  Result<AppendResult> append(std::span<std::byte> batch, int32_t leader_epoch = 0);

  // PartitionLog::read under the lock. The slice stays valid after return.
  Result<FileSlice> read(int64_t offset, uint64_t max_bytes);

  // PartitionLog's offsets, read under the lock.
  int64_t log_end_offset() const;
  int64_t durable_offset() const;

  // How many fdatasyncs appends have run; tests use it to see sharing.
  uint64_t sync_count() const;

 private:
  PartitionLog& log_;
  mutable std::mutex mu_;
  std::condition_variable synced_;
  const int max_syncs_;
  int syncs_running_ = 0;
  int64_t highest_sync_target_ = 0;  // of the syncs started so far
  uint64_t sync_count_ = 0;
  uint64_t failed_syncs_ = 0;
};

}  // namespace spillway::storage
