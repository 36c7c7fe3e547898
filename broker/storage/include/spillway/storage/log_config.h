// Per-partition settings of the durable log: segment size and age, index
// density, flush policy and retention (docs/log-storage.md).
#pragma once

#include <cstdint>

#include "spillway/common/status.h"

namespace spillway::storage {

enum class FlushPolicy : uint8_t {
  // fdatasync before an append is reported done; concurrent appends share one
  // fdatasync (group commit, see PartitionLog::begin_flush).
  kDurable,
  // fdatasync every flush_interval_ms or flush_interval_bytes; the page cache
  // carries the rest.
  kInterval,
};

struct LogConfig {
  // A segment rolls before an append that would take it past this size.
  uint64_t segment_bytes = 1ull << 30;
  // A non-empty segment rolls on the first append after it is this old.
  int64_t segment_ms = 7ll * 24 * 3600 * 1000;
  // One sparse index entry per this many bytes of log.
  uint32_t index_interval_bytes = 4096;
  // The largest batch accepted by append and believed by recovery.
  uint32_t max_batch_bytes = 1u << 20;

  FlushPolicy flush_policy = FlushPolicy::kInterval;
  int64_t flush_interval_ms = 1000;
  uint64_t flush_interval_bytes = 64ull << 20;

  // Whole segments beyond these limits are deleted; -1 means no limit.
  int64_t retention_bytes = -1;
  int64_t retention_ms = 7ll * 24 * 3600 * 1000;

  // read() verifies the CRC-32C of every batch it returns before handing
  // out the slice; a mismatch makes the log corrupt (see PartitionLog).
  bool verify_reads = false;

  // Ok, or kConfig naming the first setting out of range.
  Status validate() const;
};

}  // namespace spillway::storage
