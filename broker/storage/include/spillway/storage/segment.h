// One segment of a partition log: `<base>.log`, the batches with offsets from
// `base` on, stored verbatim back to back, and `<base>.index`, its sparse
// offset index (offset_index.h). `<base>` is the base offset in 20 decimal
// digits. Format and recovery rules: docs/log-storage.md.
//
// Not thread-safe: a segment belongs to one PartitionLog, which is used from
// one core. The log file itself is shared
// with read results (FileSlice) so it outlives the segment if needed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"
#include "spillway/storage/log_config.h"
#include "spillway/storage/offset_index.h"

namespace spillway::storage {

// Where a run of whole batches sits in a segment's log file.
struct SegmentRange {
  uint64_t position = 0;     // file position of the first batch
  uint64_t length = 0;       // bytes of whole batches; 0 when nothing matched
  int64_t first_offset = 0;  // base offset of the first batch
  int64_t next_offset = 0;   // one past the last offset of the last batch
};

// A stretch of a segment's log file that holds no valid batch: from where a
// batch should have started to where the next valid one does.
struct DamagedRange {
  uint64_t position = 0;     // first damaged byte
  uint64_t end = 0;          // start of the next valid batch, or the file size
  int64_t first_offset = 0;  // the offset the first missing batch should have had
  int64_t end_offset = -1;   // base offset of the batch at `end`; -1 when none follows
  const char* reason = "";   // why the batch at `position` was rejected
  bool torn_tail() const { return end_offset < 0; }
};

// What Segment::open checked and found. Opening never changes the files;
// the caller decides what to do about damage (finish_recovery, or nothing).
struct SegmentScan {
  // The prefix that was verified before (the caller's verified_bytes, at
  // most the file size). Damage inside it, found when the trusted walk fell
  // back to checking everything, is decay of checked data, never a torn tail.
  uint64_t verified_before = 0;
  std::vector<DamagedRange> damage;  // in file order
};

class Segment {
 public:
  // "<dir>/<20-digit base>.log" and ".index".
  static std::string log_path(const std::string& dir, int64_t base_offset);
  static std::string index_path(const std::string& dir, int64_t base_offset);
  // "<20-digit base>.log", the log file's name without a directory.
  static std::string log_name(int64_t base_offset);
  // The base offset in a file name "<20 digits><ext>", or -1 when `name` is
  // not such a name.
  static int64_t parse_name(const std::string& name, std::string_view ext);

  // Creates an empty segment, truncating leftovers with the same name. The
  // caller fsyncs the directory.
  static Result<std::unique_ptr<Segment>> create(FileSystem& fs, const std::string& dir,
                                                 int64_t base_offset, const LogConfig& config,
                                                 int64_t now_ms);

  // Opens an existing segment. The first `verified_bytes` of its log were
  // verified before (UINT64_MAX: all of it) and are trusted: the index is
  // loaded and only the batch headers after its last entry below that point
  // are walked. Every batch after it is read and checked (length, CRC and
  // records via batch::validate, dense offsets); at a batch that fails, the
  // scan looks forward for the next valid batch with a plausible base
  // offset, records the damaged range in `scan` and goes on from there. The
  // whole file is checked instead when the index is missing or invalid or
  // the trusted headers do not line up. Files are not changed.
  static Result<std::unique_ptr<Segment>> open(FileSystem& fs, const std::string& dir,
                                               int64_t base_offset, const LogConfig& config,
                                               uint64_t verified_bytes, int64_t now_ms,
                                               SegmentScan* scan);

  // After open: cuts the log at `cut_at` (a damaged tail; `next_offset` is
  // the offset that starts there) when that is below its size, then writes
  // the rebuilt index if open changed it. Both are synced.
  Status finish_recovery(uint64_t cut_at, int64_t next_offset);

  // Appends one batch whose stored base offset is `base_offset` and last
  // offset `last_offset`. On error nothing changed logically: the file is cut
  // back to its previous end (best effort; a leftover tail is never read and
  // recovery removes it).
  Status append(std::span<const std::byte> batch, int64_t base_offset, int64_t last_offset,
                int64_t now_ms);

  // Whole batches starting with the one that contains `offset`, the first one
  // always whole, then more while the total stays <= max_bytes and their base
  // offsets stay below `end_offset`. Empty when no batch at or after `offset`
  // lies below `end_offset`. Costs two index lookups (the index skips whole
  // batches) and a pread of the few batch headers past the last index entry
  // used; the batch bytes themselves are not read.
  Result<SegmentRange> read(int64_t offset, uint64_t max_bytes, int64_t end_offset);

  // Cuts the segment at `position`, a batch boundary (0 empties it), where
  // offset `next_offset` starts, with the index entries at or after it;
  // the log and the index file are synced before it returns.
  Status truncate_to(uint64_t position, int64_t next_offset);

  // fdatasync of the log file, then writes and syncs the index file.
  Status sync_all();
  // Writes the index entries not yet on disk to the index file (no sync).
  Status persist_index();

  // Reserves the in-memory index for a full segment so that appends never
  // allocate. Done by create(); the log calls it for the active segment it
  // recovered.
  void reserve_index_for_appends();

  // Removes both files; the log file stays readable through live FileSlices.
  Status remove_files();

  int64_t base_offset() const { return base_offset_; }
  int64_t next_offset() const { return next_offset_; }
  uint64_t size() const { return size_; }
  int64_t created_ms() const { return created_ms_; }
  int64_t last_write_ms() const { return last_write_ms_; }
  const std::shared_ptr<File>& log_file() const { return log_; }
  const OffsetIndex& index() const { return index_; }

 private:
  Segment(FileSystem& fs, std::string dir, int64_t base_offset, const LogConfig& config,
          std::shared_ptr<File> log, std::unique_ptr<File> index_file);
  // Walks batch headers from the last index entry below `limit`; true when
  // they end exactly at `limit` (and restores missing index entries).
  Result<bool> walk_trusted(uint64_t limit);
  Status verify_from(uint64_t position, int64_t expected, SegmentScan* scan);
  // After the check of an undamaged segment: when the index built from it
  // is the one in the file, the file needs no rewrite (and no sync).
  void keep_matching_index(const SegmentScan& scan);

  FileSystem& fs_;
  std::string dir_;
  int64_t base_offset_;
  const LogConfig& config_;
  std::shared_ptr<File> log_;
  std::unique_ptr<File> index_file_;
  OffsetIndex index_;
  int64_t next_offset_;
  uint64_t size_ = 0;
  uint64_t bytes_since_index_ = 0;
  bool index_dirty_ = false;  // the index file differs from index_ (rewrite on finish)
  int64_t created_ms_ = 0;
  int64_t last_write_ms_ = 0;
};

}  // namespace spillway::storage
