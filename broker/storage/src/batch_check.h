// Checking stored batches on the read path (verify_reads) without
// allocating: a streaming CRC-32C over a caller's buffer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

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

// Checks the batches in [position, position + length) of `file`: each
// header parses, base offsets run densely from `first_offset`, the batches
// tile the range exactly, and each CRC-32C matches. Reads through `buffer`
// (at least batch::kHeaderSize bytes). nullopt when all are intact; an
// error only when reading fails.
Result<std::optional<BadBatch>> check_stored_batches(File& file, uint64_t position, uint64_t length,
                                                     int64_t first_offset,
                                                     std::span<std::byte> buffer);

}  // namespace spillway::storage
