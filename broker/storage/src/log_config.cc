// Range checks for LogConfig; the limits keep file positions within the
// 32-bit fields of the offset index.
#include "spillway/storage/log_config.h"

#include <string>

#include "spillway/common/record_batch.h"

namespace spillway::storage {

Status LogConfig::validate() const {
  auto bad = [](const char* what) {
    return Status(ErrorCode::kConfig, std::string("log config: ") + what);
  };
  if (segment_bytes < 1024 || segment_bytes > (1ull << 31)) {
    return bad("segment_bytes must be in [1 KiB, 2 GiB]");
  }
  if (segment_ms <= 0) return bad("segment_ms must be positive");
  if (index_interval_bytes == 0) return bad("index_interval_bytes must be positive");
  if (max_batch_bytes < batch::kHeaderSize || max_batch_bytes > batch::kMaxBatchBytes) {
    return bad("max_batch_bytes must be in [61 B, 64 MiB]");
  }
  if (flush_interval_ms <= 0) return bad("flush_interval_ms must be positive");
  if (flush_interval_bytes == 0) return bad("flush_interval_bytes must be positive");
  if (retention_bytes < -1) return bad("retention_bytes must be -1 or non-negative");
  if (retention_ms < -1) return bad("retention_ms must be -1 or non-negative");
  return Status::Ok();
}

}  // namespace spillway::storage
