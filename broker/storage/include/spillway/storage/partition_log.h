// PartitionLog: the durable, append-only log of one partition, a directory of
// segments (segment.h). Appends store batches verbatim after stamping their
// base offset and leader epoch; reads return file ranges of whole stored
// batches so the network layer can send the bytes unchanged (sendfile, or
// pread straight into its send buffer). Layout, recovery, retention and flush
// policy: docs/log-storage.md.
//
// Concurrency: not thread-safe. In the broker a partition is owned by one
// core and every call is made there; the only work that may run elsewhere is
// run_flush() (an fdatasync), which is what lets one core keep appending
// while a blocking thread syncs (broker/core/partition.h).
//
// Group commit on the owner core, for the `durable` policy:
//   append()            -> offsets; the batch is written but not yet durable
//   begin_flush()       -> a FlushRequest covering everything written so far
//   run_flush(request)  -> the fdatasync, on any thread
//   finish_flush(...)   -> durable_offset() advances; acknowledge every
//                          append whose last offset is below it
// Appends that arrive while a flush runs wait for the next one, so a single
// fdatasync covers all of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "spillway/common/ids.h"
#include "spillway/common/record_batch.h"
#include "spillway/common/status.h"
#include "spillway/storage/batch_check.h"
#include "spillway/storage/file_system.h"
#include "spillway/storage/log_config.h"
#include "spillway/storage/segment.h"

namespace spillway::storage {

// The offsets an append stored its batch at.
struct AppendResult {
  Offset base_offset;
  Offset last_offset;
};

// Stored bytes of whole batches: `length` bytes at `position` of `file`.
// Holding the slice keeps the file open even if retention deletes it.
struct FileSlice {
  std::shared_ptr<File> file;  // null when empty
  uint64_t position = 0;
  uint64_t length = 0;
  Offset first_offset{0};  // base offset of the first batch
  Offset next_offset{0};   // where the next read should start
  bool empty() const { return length == 0; }
};

// Copies the slice's bytes into `out` with pread. Precondition:
// out.size() == slice.length.
Status read_slice(const FileSlice& slice, std::span<std::byte> out);

// What a corrupt log knows about its damage; see PartitionLog::corrupt().
struct Corruption {
  int64_t first_offset = -1;  // first offset of the damaged range, -1 when unknown
  int64_t end_offset = -1;    // one past its last offset, -1 when unknown
  std::string segment;        // file name of the segment (no directory)
  uint64_t position = 0;      // damaged bytes [position, position + length) of it
  uint64_t length = 0;
  std::string reason;            // e.g. "CRC mismatch"
  std::size_t other_ranges = 0;  // further damaged ranges the same check found
  // One line for clients and logs; names offsets and the file name only.
  std::string describe() const;
};

// One fdatasync's worth of group commit; see the file comment.
struct FlushRequest {
  std::shared_ptr<File> file;  // the active segment's log, null when nothing to do
  Offset target_offset{0};     // everything below is covered once the sync succeeds
  // The log's truncation count when the request was made: a flush begun
  // before a truncate_to() synced bytes that may be gone, so it moves
  // nothing (truncate_to() synced what it kept itself).
  uint64_t truncations = 0;
  bool needed() const { return file != nullptr; }
};

// Bytes of the active segment to start writing back (File::start_writeback).
struct WritebackRequest {
  std::shared_ptr<File> file;  // null when there is nothing to do
  uint64_t offset = 0;
  uint64_t length = 0;
  bool needed() const { return file != nullptr; }
};

// Orders verified-point writes on other threads against truncate_to(): a
// write made before a truncation must not land after it (it would claim
// bytes that were cut, or that a later append put there, as checked).
struct VerifiedPointFence {
  std::mutex mu;
  uint64_t truncations = 0;  // guarded by mu
};

// Records a new verified point (PartitionLog::finish_sealed_check); the
// file write and fsync run on any thread.
struct VerifiedPointWrite {
  FileSystem* fs = nullptr;  // null when there is nothing to write
  std::string dir;
  int64_t segment = 0;
  uint64_t position = 0;
  // Skipped when the log was truncated after the write was made.
  std::shared_ptr<VerifiedPointFence> fence;
  uint64_t truncations = 0;
  bool needed() const { return fs != nullptr; }
};

class PartitionLog {
 public:
  // Milliseconds since the Unix epoch; injectable so tests can age segments.
  using Clock = std::function<int64_t()>;
  static int64_t system_clock_ms();

  // Opens (creating if needed) the log in `dir` and recovers it: the bytes
  // up to the verified point (recorded by the previous open) are trusted,
  // every batch after it is checked. A damaged tail of the last segment
  // with no valid batch after it (a torn write) is cut; any other damage
  // leaves the files as they are and opens the log corrupt (corrupt()), so
  // an operator can repair it (repair.h) without losing the valid batches
  // after the damage. Errors are I/O errors only. `fs` must outlive the log.
  static Result<std::unique_ptr<PartitionLog>> open(FileSystem& fs, std::string dir,
                                                    LogConfig config,
                                                    Clock clock = &system_clock_ms);

  // open() of every directory in `dirs` on up to `threads` threads; result
  // i is dirs[i]'s. Each open leaves its directory fsync (the removed
  // clean-shutdown marker, a new .verified) for a second pass that runs
  // once every log is open, so that those fsyncs find their changes
  // already committed together by the journal instead of committing one
  // transaction each (docs/log-storage.md, "Opening many logs"). A log
  // whose fsync fails is returned as that error instead. Logs one info line
  // for all of them; the per-log lines are debug. `fs` must be thread-safe.
  static std::vector<Result<std::unique_ptr<PartitionLog>>> open_many(
      FileSystem& fs, const std::vector<std::string>& dirs, const LogConfig& config,
      unsigned threads, Clock clock = &system_clock_ms);

  // Does not write the clean-shutdown marker: destroying an unclosed log is
  // what a crash looks like to the next open().
  ~PartitionLog();
  PartitionLog(const PartitionLog&) = delete;
  PartitionLog& operator=(const PartitionLog&) = delete;

  // Appends one RecordBatch. The caller has validated it (batch::validate);
  // here only its header is checked against its size. Its base offset and
  // partition leader epoch are overwritten in `batch` itself (both lie outside
  // the CRC) and the bytes are then written verbatim, rolling the segment
  // first when it is full or old. Errors: kCorruptMessage/kBatchTooLarge for
  // a bad header, kNotEnoughSpace/kIoError when the write failed (nothing was
  // appended and the log accepts appends again once the cause is gone),
  // kReadOnly after a failed fsync. Under the `interval` policy an append may
  // run the periodic fdatasync; if that fails the batch was written and its
  // offsets consumed, the error is returned and the log turns read-only.
  // Under `durable` the batch is acknowledged only once durable_offset()
  // passes its last offset (group commit, see above).
  Result<AppendResult> append(std::span<std::byte> batch,
                              LeaderEpoch leader_epoch = LeaderEpoch(0));

  // Replication (docs/replication.md, docs/replication-storage.md). A
  // follower appends the leader's batches as they are: base offset and
  // partition leader epoch kept. `batches` holds one or more whole stored
  // batches whose first base offset must equal log_end_offset() and whose
  // offsets run on without a gap or overlap (each base offset is the
  // previous batch's last offset + 1); every batch is checked (header,
  // size, CRC, records: batch::validate) before anything is written:
  // kInvalidArgument for an offset that does not follow, kCorruptMessage /
  // kBatchTooLarge for a bad batch, nothing written. Same rolling, errors
  // and durability rules as append(); a write error part-way leaves the
  // batches before the failing one appended (log_end_offset() says where
  // to fetch from). Returns the first and last offsets written.
  Result<AppendResult> append_replicated(std::span<const std::byte> batches);

  // Removes every batch at or after `end` (rounded down to the start of
  // the batch containing it), whole segments and a segment's tail alike,
  // with their index entries, durably (fdatasync of what is kept, segment
  // deletion, directory fsync) before it returns. The next append gets
  // offset `end` (the rounded one). No-op when `end` >= log_end_offset().
  // Truncation to or below log_start_offset() empties the log and restarts
  // it at `end`. What a follower does after a leader change (truncation by
  // leader epoch, KIP-101/279). Crash-safe: a ".truncate" marker is made
  // durable first and open() finishes an interrupted truncation, so a crash
  // at any step leaves the old log or the truncated one. The verified
  // point is lowered to the cut; checks and flushes begun before it are
  // ignored when they finish. Refused (kCorruptMessage) on a corrupt log,
  // and when closed or read-only; an I/O error part-way makes the log
  // read-only (the next open completes the truncation). Slices read before
  // a truncation may see the cut bytes change: readers re-read.
  Status truncate_to(Offset end);

  // The way out of the corrupt state for a copy that can be fetched again
  // (a follower out of the ISR, docs/replication.md "A damaged replica"):
  // truncates at the first damaged byte, dropping every batch from the
  // damaged offset on, valid or not, and then serves again. The caller must
  // know another replica holds every acknowledged record: this throws data
  // away that repair_partition_log() would keep. Crash-safe as
  // truncate_to(); the corruption marker goes after the cut is durable.
  // Returns the new log end. kCorruptMessage (and still corrupt) when the
  // damage names no offset or a segment overlaps the one before it (an
  // operator's repair); kInvalidArgument when the log is not corrupt.
  Result<Offset> discard_from_damage();

  // The stored bytes of whole batches starting with the batch that contains
  // `offset` (the first whole even when larger than max_bytes), adding batches
  // while the total stays <= max_bytes, all below high_watermark() and within
  // one segment; read on from `next_offset`. Empty at the high watermark;
  // kOffsetOutOfRange outside [log_start_offset(), high_watermark()]. An
  // offset in a gap that repair left between two segments reads from the
  // first batch after the gap. With config().verify_reads the CRC of every
  // returned batch is checked first. kCorruptMessage (naming the offsets)
  // when the log is corrupt or this read found damage; the log is corrupt
  // from then on and records where, so the next open checks there.
  Result<FileSlice> read(Offset offset, uint64_t max_bytes);

  // Calls fn(header) for the header of every stored batch whose last offset
  // is >= `from`, in offset order, reading headers only (a 4 KiB window per
  // pread, no batch bodies). What rebuilds the idempotent producers' state
  // at start (broker/core/producer_state.h). kCorruptMessage when the log is
  // corrupt or a header does not parse; I/O errors.
  Status for_each_batch_header(Offset from,
                               const std::function<void(const batch::BatchHeader&)>& fn);

  // Group commit primitives (see the file comment). begin_flush/finish_flush
  // on the owner; run_flush anywhere. A failed flush makes the log read-only.
  FlushRequest begin_flush();
  static Status run_flush(const FlushRequest& request);
  Status finish_flush(const FlushRequest& request, Status result);

  // begin_flush + run_flush + finish_flush on the calling thread.
  Status flush();

  // Writeback smoothing for the `interval` policy (on the owner): once at
  // least `min_bytes` were appended to the active segment since the last
  // request, the range to hand to run_writeback() on another thread.
  // Without it a whole interval of dirty pages is written by one fdatasync,
  // a burst that takes both cores of a small machine for milliseconds.
  WritebackRequest begin_writeback(uint64_t min_bytes);
  static Status run_writeback(const WritebackRequest& request);

  // Timer hook for the `interval` policy: flushes when flush_interval_ms has
  // passed since the last flush and something is unflushed.
  Status tick();

  // Deletes whole segments, oldest first and never the active one, while the
  // oldest was last written more than retention_ms ago or the log without it
  // is still >= retention_bytes. Returns how many were deleted; none while
  // the log is corrupt (it is kept as found for the operator).
  Result<std::size_t> enforce_retention();

  // The background check of sealed segments, which keeps the verified point
  // (and so the work of the next open) close to the active segment: the
  // oldest sealed segment past the verified point, to read back and check
  // off the owner core, or null when there is none (or the log is corrupt
  // or closed). Bytes written since are mostly still in the page cache.
  std::unique_ptr<SealedSegmentCheck> next_sealed_check() const;
  // On the owner, once `check` is over: intact moves the verified point
  // past the segment and returns the write that records it
  // (run_verified_point_write, any thread); a bad batch makes the log
  // corrupt (recorded, as a checked read does) and returns nothing to do.
  // `found_by` names the check in the corruption report.
  VerifiedPointWrite finish_sealed_check(const SealedSegmentCheck& check,
                                         const char* found_by = "the check of a sealed segment");
  // The scrubber's re-check: the first sealed segment whose base offset is
  // >= `from`, checked whole whatever the verified point says; null when
  // there is none (or the log is corrupt or closed). Its outcome goes to
  // finish_sealed_check() too.
  std::unique_ptr<SealedSegmentCheck> sealed_check_from(Offset from) const;
  static Status run_verified_point_write(const VerifiedPointWrite& write);

  // Clean shutdown: flushes, writes every index, writes the clean-shutdown
  // marker (a corrupt log only flushes). The log accepts nothing afterwards.
  Status close();

  // True once recovery or a checked read found damage that is not a torn
  // tail; the log then answers appends and reads with kCorruptMessage.
  bool corrupt() const { return corruption_ != nullptr; }
  const Corruption* corruption() const { return corruption_.get(); }

  Offset log_start_offset() const;
  // One past the last appended offset.
  Offset log_end_offset() const { return Offset(next_offset_); }
  // Every offset below this is on disk (fdatasync'ed).
  Offset durable_offset() const { return Offset(durable_offset_); }
  // What readers may see: durable_offset() under `durable`, log_end_offset()
  // under `interval`.
  Offset high_watermark() const;
  bool read_only() const { return !read_only_reason_.ok(); }
  uint64_t size_bytes() const;
  std::size_t segment_count() const { return segments_.size(); }
  const LogConfig& config() const { return config_; }
  const std::string& dir() const { return dir_; }
  // The file system the log was opened on (for files the broker keeps
  // beside it, such as the producer state snapshot).
  FileSystem& file_system() const { return fs_; }

 private:
  PartitionLog(FileSystem& fs, std::string dir, LogConfig config, Clock clock);
  // Recovery (partition_log_open.cc). With `defer_dir_sync` the fsync of
  // the directory it changed is left to sync_open_changes() (open_many).
  Status recover(bool defer_dir_sync);
  // Makes the directory changes of the open durable, if still pending.
  Status sync_open_changes();
  // Called before anything new is written to the log (append,
  // append_replicated, a truncation): the clean-shutdown marker found at
  // open must be gone, durably, before then, or a crash after the write
  // would look like a clean stop to the next open (which then trusts the
  // tail as synced and judges a torn write as decay).
  Status before_first_write();
  // Enters the corrupt state (the first time only): logs `c`, keeps it, and
  // unless `mark_segment` < 0 records (mark_segment, mark_position) in the
  // corruption marker so the next open checks from there and cuts nothing.
  void enter_corrupt(Corruption c, int64_t mark_segment, uint64_t mark_position);
  Status corrupt_error() const;
  // verify_reads: checks the CRCs of `range` of `seg`; kCorruptMessage (and
  // the corrupt state) when one fails.
  Status verify_range(const Segment& seg, const SegmentRange& range);
  // Makes the log corrupt for `bad`, found in the segment based at `base`.
  Status enter_corrupt_at(int64_t base, const BadBatch& bad, const char* found_by);
  Status roll(int64_t now_ms);
  // Checks the batches of append_replicated(); the offsets they cover.
  Result<AppendResult> check_replicated(std::span<const std::byte> batches) const;
  // The durable part of truncate_to() once the cut {segment, position}
  // and the new log end are known (partition_log_truncate.cc).
  Status cut_log(int64_t segment, uint64_t position, int64_t new_end);
  // open(): completes a truncation a crash interrupted (the ".truncate"
  // marker), on the files, before the segments are opened.
  Status finish_interrupted_truncation();
  void enter_read_only(const Status& cause);
  Status read_only_error() const;

  FileSystem& fs_;
  std::string dir_;
  LogConfig config_;
  Clock clock_;
  std::vector<std::unique_ptr<Segment>> segments_;  // by base offset; back() is active
  int64_t next_offset_ = 0;
  int64_t durable_offset_ = 0;
  uint64_t unflushed_bytes_ = 0;
  // Position in the active segment up to which writeback was requested.
  uint64_t writeback_requested_ = 0;
  int64_t last_flush_ms_ = 0;
  Status read_only_reason_;
  std::unique_ptr<Corruption> corruption_;
  // The verified point: segments below verified_segment_, and the first
  // verified_position_ bytes of that one, were read back and checked.
  int64_t verified_segment_ = -1;
  uint64_t verified_position_ = 0;
  // How many truncations this log made; flush requests, sealed-segment
  // checks and verified-point writes from before one are ignored.
  uint64_t truncations_ = 0;
  std::shared_ptr<VerifiedPointFence> fence_ = std::make_shared<VerifiedPointFence>();
  bool closed_ = false;
  // The directory changes of the open (removed markers, created files) are
  // not yet fsynced: open_many() does it for all logs together.
  bool open_dir_sync_pending_ = false;
  // The clean-shutdown marker of the last stop is still there: a log that
  // opened corrupt keeps it until its first write.
  bool clean_marker_left_ = false;
  // What the open did, for open_many()'s summary.
  uint64_t open_checked_bytes_ = 0;
  bool open_synced_tail_ = false;
};

}  // namespace spillway::storage
