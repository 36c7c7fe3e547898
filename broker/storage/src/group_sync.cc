#include "spillway/storage/group_sync.h"

#include <cassert>

#include "spillway/storage/file_system.h"

namespace spillway::storage {

void PerFileGroupSync::sync(std::span<File* const> files, std::span<Status> results) {
  assert(files.size() == results.size());
  for (std::size_t i = 0; i < files.size(); ++i) results[i] = files[i]->sync_data();
}

Result<std::unique_ptr<GroupSync>> FileSystem::open_group_sync(const std::string& dir) {
  (void)dir;
  return std::unique_ptr<GroupSync>(std::make_unique<PerFileGroupSync>());
}

}  // namespace spillway::storage
