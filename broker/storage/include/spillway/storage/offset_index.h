// The sparse offset index of one segment: for every ~index_interval_bytes of
// log, the base offset of a batch and its file position, so a read finds its
// batch with a binary search and a short forward walk.
//
// On disk (`<base>.index`) the index is a flat array of 8-byte entries, each
// a big-endian uint32 offset relative to the segment's base offset followed by
// a big-endian uint32 file position; both strictly increase. The whole index
// is also held in memory; entries of the active segment are written to the
// file lazily (on flush, roll and close) because recovery rebuilds the active
// segment's index from the log anyway.
//
// Not thread-safe; owned by its Segment.
#pragma once

#include <cstdint>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::storage {

struct IndexEntry {
  int64_t offset;     // absolute base offset of an indexed batch
  uint64_t position;  // its file position in the segment
};

class OffsetIndex {
 public:
  static constexpr std::size_t kEntrySize = 8;

  explicit OffsetIndex(int64_t base_offset) : base_offset_(base_offset) {}

  // Adds an entry. Precondition: offset and position exceed the last entry's,
  // offset - base fits in uint32, position fits in uint32.
  void add(int64_t offset, uint64_t position);

  // The entry with the greatest offset <= `offset`, or {base, 0} when none is;
  // O(log n).
  IndexEntry lookup(int64_t offset) const;

  // The entry with the greatest position <= `position`, or {base, 0}; O(log n).
  // Every entry marks a batch boundary, so reads use it to skip over whole
  // batches without reading their headers.
  IndexEntry lookup_position(uint64_t position) const;

  // Drops every entry whose position is >= `position` (the log was cut there).
  void truncate_to(uint64_t position);

  // Replaces the entries with those stored in `file`. kCorruptMessage when the
  // file's size is not a multiple of 8, an entry does not increase, or a
  // position is >= log_size; the index is then left empty.
  Status load(File& file, uint64_t log_size);

  // Writes the entries not yet in `file` to its end.
  Status persist(File& file);

  // Rewrites `file` to hold exactly the in-memory entries.
  Status rewrite(File& file);

  // True iff both hold the same entries.
  bool same_entries(const OffsetIndex& other) const;

  // Declares that the file holds exactly the in-memory entries (they were
  // compared with it): persist() then writes only later ones.
  void mark_persisted() {
    persisted_ = entries_.size();
    file_has_stale_tail_ = false;
  }

  // Reserves room for `entries` entries.
  void reserve(std::size_t entries) { entries_.reserve(entries); }

  std::size_t entry_count() const { return entries_.size(); }
  int64_t base_offset() const { return base_offset_; }

 private:
  struct Packed {
    uint32_t relative_offset;
    uint32_t position;
  };
  int64_t base_offset_;
  std::vector<Packed> entries_;
  std::size_t persisted_ = 0;         // entries_[0, persisted_) are in the file
  bool file_has_stale_tail_ = false;  // truncate_to dropped persisted entries
};

}  // namespace spillway::storage
