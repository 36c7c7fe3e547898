// Checking stored batches after they were written (verify_reads, and the
// background check of sealed segments) without allocating: a streaming
// CRC-32C through a caller's buffer, resumable at batch boundaries.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::storage {

// The first stored batch of a range that is not intact.
struct BadBatch {
  uint64_t position = 0;    // file position where it starts
  uint64_t size = 0;        // its claimed size, 0 when the header does not parse
  int64_t base_offset = 0;  // the offset it should start at
  int64_t end_offset = -1;  // one past its claimed last offset, -1 when unknown
  const char* reason = "";
};

// Walks the batches in [position, end) of a file: each header parses, base
// offsets run densely from `first_offset`, the batches tile the range
// exactly, and each CRC-32C matches. Not thread-safe; the file must outlive it.
class BatchChecker {
 public:
  BatchChecker(File& file, uint64_t position, uint64_t end, int64_t first_offset)
      : file_(file), position_(position), end_(end), expected_(first_offset) {}

  // Checks whole batches until at least `budget` bytes were checked or the
  // range ends, reading through `buffer` (at least batch::kHeaderSize
  // bytes; nothing is kept in it between calls, so callers may share one).
  // The first bad batch, or nullopt; an error only when a read fails.
  Result<std::optional<BadBatch>> step(uint64_t budget, std::span<std::byte> buffer);

  bool done() const { return position_ >= end_; }
  uint64_t position() const { return position_; }  // a batch boundary
  int64_t next_offset() const { return expected_; }

 private:
  File& file_;
  uint64_t position_;
  uint64_t end_;
  int64_t expected_;
  uint64_t window_start_ = 0;
  uint64_t window_size_ = 0;
};

// A buffer for BatchChecker::step owned by the calling thread (256 KiB,
// allocated on its first use), so that checks allocate nothing per call and
// many partitions' checks do not each hold one.
std::span<std::byte> thread_check_buffer();

// The read-back check of one whole sealed segment, in steps, on any thread
// (made by PartitionLog::next_sealed_check). Holds the segment's file open,
// so retention may delete the segment meanwhile.
class SealedSegmentCheck {
 public:
  // `truncations`: the log's truncation count when the check was made (a
  // check from before a truncation is ignored, PartitionLog::truncate_to).
  SealedSegmentCheck(std::shared_ptr<File> file, int64_t base_offset, uint64_t size,
                     uint64_t truncations = 0);

  // Checks about `budget` more bytes through thread_check_buffer(); true
  // once the check is over (the whole segment checked, or a bad batch
  // found: see damage()).
  Result<bool> step(uint64_t budget);

  int64_t base_offset() const { return base_offset_; }
  uint64_t size() const { return size_; }
  uint64_t truncations() const { return truncations_; }
  // Bytes checked so far (whole batches from the start).
  uint64_t checked_bytes() const { return checker_.position(); }
  // After step() returned true: the first bad batch, or null.
  const BadBatch* damage() const { return damage_ ? &*damage_ : nullptr; }

 private:
  std::shared_ptr<File> file_;
  int64_t base_offset_;
  uint64_t size_;
  uint64_t truncations_;
  BatchChecker checker_;
  std::optional<BadBatch> damage_;
};

}  // namespace spillway::storage
