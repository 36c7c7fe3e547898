// The small marker files of a partition directory (docs/log-storage.md,
// "Directory layout"): the clean-shutdown marker, the verified point and
// the corruption marker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::storage {

// Present only between a successful PartitionLog::close() and the next open().
inline constexpr char kCleanShutdownMarker[] = "/.clean_shutdown";
// Where the log was last read back and checked up to (a LogPosition).
inline constexpr char kVerifiedMarker[] = "/.verified";
// Where a read found damage at run time (a LogPosition); until repair, the
// next open checks from there and never cuts what it finds.
inline constexpr char kCorruptMarker[] = "/.corrupt";

// Where a truncation (PartitionLog::truncate_to) cuts the log (a
// LogPosition: segments after `segment` go, `segment` keeps `position`
// bytes and is created empty when missing). Durable before the first file
// changes and removed once all of them are durable, so open() finishes a
// truncation a crash interrupted.
inline constexpr char kTruncateMarker[] = "/.truncate";

// A byte position in a log: `position` bytes into the segment whose base
// offset is `segment`. As a verified point it means: every batch of the
// segments below `segment`, and the first `position` bytes of `segment`,
// were read back from the file and checked.
struct LogPosition {
  int64_t segment = 0;
  uint64_t position = 0;
  friend bool operator<(const LogPosition& a, const LogPosition& b) {
    return a.segment != b.segment ? a.segment < b.segment : a.position < b.position;
  }
};

// Reads a position file written by write_log_position. nullopt when the
// file is missing, or (with a warning) unreadable, torn or not one of ours.
std::optional<LogPosition> read_log_position(FileSystem& fs, const std::string& path);

// Whether write_log_position syncs the file before it returns.
enum class PositionSync { kSync, kNoSync };

// Writes `pos` to `path` (28 bytes: magic, segment, position, CRC-32C) and,
// with kSync, syncs the file; the caller syncs the directory when the file
// is new. kNoSync is for a position whose loss is harmless: a crash then
// leaves the older contents, or a torn file that read_log_position ignores.
Status write_log_position(FileSystem& fs, const std::string& path, LogPosition pos,
                          PositionSync sync = PositionSync::kSync);

}  // namespace spillway::storage
