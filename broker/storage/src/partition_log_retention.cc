// Retention: whole segments go, oldest first, never the active one.
#include <spdlog/spdlog.h>

#include "spillway/storage/partition_log.h"

namespace spillway::storage {

Result<std::size_t> PartitionLog::enforce_retention() {
  if (closed_) return read_only_error();
  if (corrupt()) return std::size_t{0};
  const int64_t now = clock_();
  uint64_t total = size_bytes();
  std::size_t deleted = 0;
  while (segments_.size() - deleted > 1) {
    const Segment& oldest = *segments_[deleted];
    const bool too_old =
        config_.retention_ms >= 0 && now - oldest.last_write_ms() > config_.retention_ms;
    // Kafka's rule: drop the oldest segment only while the rest still holds
    // at least retention_bytes, so the log never shrinks below the limit.
    const bool too_big = config_.retention_bytes >= 0 &&
                         total - oldest.size() >= static_cast<uint64_t>(config_.retention_bytes);
    if (!too_old && !too_big) break;
    Status st = segments_[deleted]->remove_files();
    if (!st.ok()) {
      segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(deleted));
      return st;
    }
    spdlog::info("partition log {}: retention deleted segment {} ({} bytes, offsets [{}, {}))",
                 dir_, oldest.base_offset(), oldest.size(), oldest.base_offset(),
                 oldest.next_offset());
    total -= oldest.size();
    ++deleted;
  }
  if (deleted == 0) return deleted;
  segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(deleted));
  SPILLWAY_RETURN_IF_ERROR(fs_.sync_dir(dir_));
  return deleted;
}

}  // namespace spillway::storage
