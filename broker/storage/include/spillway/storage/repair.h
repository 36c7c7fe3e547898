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

Result<RepairReport> repair_partition_log(FileSystem& fs, const std::string& dir,
                                          const LogConfig& config);

}  // namespace spillway::storage
