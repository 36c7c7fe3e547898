#include "spillway/storage/repair.h"

namespace spillway::storage {

Result<RepairReport> repair_partition_log(FileSystem&, const std::string&, const LogConfig&) {
  return Status(ErrorCode::kUnknown, "not implemented");
}

}  // namespace spillway::storage
