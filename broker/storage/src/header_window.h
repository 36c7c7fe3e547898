// A small read-ahead window over a log file used to walk batch headers
// without reading batch bodies: one pread fetches the headers of every batch
// that starts within the next few KiB.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "spillway/common/record_batch.h"
#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::storage {

// The facts about a stored batch that walking the log needs.
struct StoredBatch {
  int64_t base_offset;
  int64_t last_offset;
  uint64_t size;              // total bytes, prefix included
  batch::BatchHeader header;  // as stored (producer id, epoch, sequence)
};

class HeaderWindow {
 public:
  // `file` must outlive the window; `file_end` is the logical end of the log.
  HeaderWindow(File& file, uint64_t file_end) : file_(file), end_(file_end) {}

  // The header of the batch at `position`. kCorruptMessage when the header
  // is malformed, runs past the end, or claims a size past the end or above
  // `max_batch_bytes`.
  Result<StoredBatch> at(uint64_t position, uint32_t max_batch_bytes);

 private:
  File& file_;
  uint64_t end_;
  uint64_t start_ = 0;  // file position of buf_[0]
  std::size_t filled_ = 0;
  std::array<std::byte, 4096> buf_;
};

}  // namespace spillway::storage
