// GroupCommitLog: leader/follower group commit over one PartitionLog.
#include "spillway/storage/group_commit_log.h"

namespace spillway::storage {

Result<AppendResult> GroupCommitLog::append(std::span<std::byte> batch, int32_t leader_epoch) {
  std::unique_lock lock(mu_);
  Result<AppendResult> appended = log_.append(batch, leader_epoch);
  if (!appended.ok() || log_.config().flush_policy != FlushPolicy::kDurable) return appended;
  const int64_t target = appended->last_offset + 1;
  const uint64_t failures_before = failed_syncs_;
  while (log_.durable_offset() < target) {
    if (failed_syncs_ != failures_before || log_.read_only()) {
      return Status(ErrorCode::kReadOnly, "fdatasync failed; batch not acknowledged");
    }
    // Wait when the running syncs already cover this batch (their target
    // includes it) or when no more may start.
    if (highest_sync_target_ >= target || syncs_running_ >= max_syncs_) {
      synced_.wait(lock);
      continue;
    }
    // Leader: one fdatasync for everything written so far, lock released so
    // others keep appending into the next group meanwhile.
    FlushRequest request = log_.begin_flush();
    highest_sync_target_ = request.target_offset;
    ++syncs_running_;
    lock.unlock();
    Status result = PartitionLog::run_flush(request);
    lock.lock();
    --syncs_running_;
    ++sync_count_;
    if (!result.ok()) ++failed_syncs_;
    Status finished = log_.finish_flush(request, std::move(result));
    synced_.notify_all();
    if (!finished.ok()) return finished;
  }
  return appended;
}

Result<FileSlice> GroupCommitLog::read(int64_t offset, uint64_t max_bytes) {
  std::lock_guard lock(mu_);
  return log_.read(offset, max_bytes);
}

int64_t GroupCommitLog::log_end_offset() const {
  std::lock_guard lock(mu_);
  return log_.log_end_offset();
}

int64_t GroupCommitLog::durable_offset() const {
  std::lock_guard lock(mu_);
  return log_.durable_offset();
}

uint64_t GroupCommitLog::sync_count() const {
  std::lock_guard lock(mu_);
  return sync_count_;
}

}  // namespace spillway::storage
