// One segment of a partition log: `<base>.log`, the batches with offsets from
// `base` on, stored verbatim back to back, and `<base>.index`, its sparse
// offset index (offset_index.h). `<base>` is the base offset in 20 decimal
// digits. Format and recovery rules: docs/log-storage.md.
//
// Not thread-safe: a segment belongs to one PartitionLog, which is used from
// one core (or under GroupCommitLog's mutex). The log file itself is shared
// with read results (FileSlice) so it outlives the segment if needed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

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

// How much of an existing segment to believe on open.
enum class SegmentCheck : uint8_t {
  // Trust the index and the batches; only walk the batch headers after the
  // last index entry to find the end. Falls back to kVerify when the index is
  // missing or invalid or the headers do not line up with the file size.
  kTrustIndex,
  // Read every batch, verify its CRC and offsets, cut the file at the first
  // invalid or torn batch, rebuild and rewrite the index.
  kVerify,
};

class Segment {
 public:
  // "<dir>/<20-digit base>.log" and ".index".
  static std::string log_path(const std::string& dir, int64_t base_offset);
  static std::string index_path(const std::string& dir, int64_t base_offset);

  // Creates an empty segment, truncating leftovers with the same name. The
  // caller fsyncs the directory.
  static Result<std::unique_ptr<Segment>> create(FileSystem& fs, const std::string& dir,
                                                 int64_t base_offset, const LogConfig& config,
                                                 int64_t now_ms);

  // Opens an existing segment, recovering it as `check` says. Recovery that
  // cuts the file logs what it cut (spdlog::warn).
  static Result<std::unique_ptr<Segment>> open(FileSystem& fs, const std::string& dir,
                                               int64_t base_offset, const LogConfig& config,
                                               SegmentCheck check, int64_t now_ms);

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
  Status verify_and_rebuild();
  Result<bool> walk_tail();  // false: headers do not line up

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
  int64_t created_ms_ = 0;
  int64_t last_write_ms_ = 0;
};

}  // namespace spillway::storage
