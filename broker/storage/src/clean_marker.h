// Name of the clean-shutdown marker inside a partition directory: present
// only between a successful PartitionLog::close() and the next open().
#pragma once

namespace spillway::storage {

inline constexpr char kCleanShutdownMarker[] = "/.clean_shutdown";

}  // namespace spillway::storage
