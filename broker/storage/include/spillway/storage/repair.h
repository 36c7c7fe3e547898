// Offline repair of a corrupt partition log (docs/log-storage.md, "Repair").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"
#include "spillway/storage/log_config.h"

namespace spillway::storage {

// One damaged byte range that repair cut out of a segment.
struct RemovedRange {
  std::string segment;    // file name of the segment it was in
  uint64_t position = 0;  // bytes [position, position + length) of that file
  uint64_t length = 0;
  int64_t first_offset = 0;  // offsets [first_offset, end_offset) are gone
  int64_t end_offset = -1;   // -1: a damaged tail; later appends reuse first_offset on
  std::string reason;
};

struct RepairReport {
  std::vector<RemovedRange> removed;
  std::vector<std::string> created_segments;  // file names of segments split off
};

// Checks every batch of every segment of the partition log in `dir` (no
// PartitionLog may have it open) and cuts each damaged range out:
//  * the valid batches after a damaged range keep their offsets: they move
//    to a new segment named by their base offset, so the log has an offset
//    gap where the damage was (reads there return the batch after it);
//  * a damaged tail of the last segment is cut, as recovery cuts a torn one;
//  * a segment left with nothing valid is removed (the last one is kept,
//    empty, so the log still ends where it did).
// New segments are written and synced before anything is cut, so a repair
// cut short is completed by running it again. Afterwards every batch left
// has been checked: the verified point moves to the end and the corruption
// marker is removed, and the next open serves the log. Changes nothing and
// returns kCorruptMessage when two segments hold the same offsets. `config`
// must admit the largest batch the log may hold (max_batch_bytes).
Result<RepairReport> repair_partition_log(FileSystem& fs, const std::string& dir,
                                          const LogConfig& config);

}  // namespace spillway::storage
