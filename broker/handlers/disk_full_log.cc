// Full-disk episodes per partition, logged at their start and end.
#include "disk_full_log.h"

#include <spdlog/spdlog.h>

namespace spillway::broker {

DiskFullLog& DiskFullLog::global() {
  static DiskFullLog log;
  return log;
}

void DiskFullLog::failed(std::string_view topic, int32_t partition, const Status& status) {
  if (status.code() != ErrorCode::kNotEnoughSpace) return;
  std::lock_guard lock(mu_);
  auto [it, first] = failures_.try_emplace({std::string(topic), partition}, 0);
  ++it->second;
  if (!first) return;
  episodes_.store(failures_.size(), std::memory_order_relaxed);
  spdlog::error(
      "partition {}-{}: no space left on the disk: {}; appends to it fail until space is freed "
      "(logged again when one succeeds)",
      topic, partition, status.message());
}

void DiskFullLog::end_episode(std::string_view topic, int32_t partition) {
  std::lock_guard lock(mu_);
  auto it = failures_.find({std::string(topic), partition});
  if (it == failures_.end()) return;
  spdlog::info("partition {}-{}: appends succeed again after {} failed for lack of disk space",
               topic, partition, it->second);
  failures_.erase(it);
  episodes_.store(failures_.size(), std::memory_order_relaxed);
}

}  // namespace spillway::broker
