// Many files' data made durable as one operation (the `interval` flush of
// every partition of a core at once, docs/log-storage.md "Interval flush").
//
// Synced one by one, 10,000 partitions under the `interval` policy cost
// 10,000 fdatasync calls per interval, each a journal commit of its own; a
// GroupSync over the file system that holds them makes them durable with
// one syncfs(2) instead (FileSystem::open_group_sync). Its result is still
// per file: when the one call reports a write-back error, every file of the
// group is synced on its own, so only the files whose data was lost fail.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "spillway/common/status.h"

namespace spillway::storage {

class File;

class GroupSync {
 public:
  virtual ~GroupSync() = default;
  GroupSync() = default;
  GroupSync(const GroupSync&) = delete;
  GroupSync& operator=(const GroupSync&) = delete;

  // Whether files under `dir` can be synced by this group (they are on its
  // file system). Files it does not cover are synced on their own.
  virtual bool covers(const std::string& dir) = 0;

  // Makes the data of every one of `files` durable (as File::sync_data()
  // would); results[i] is files[i]'s outcome. Same sizes. Called by one
  // thread at a time.
  virtual void sync(std::span<File* const> files, std::span<Status> results) = 0;
};

// The group that syncs each file on its own: what a file system without a
// whole-file-system sync offers.
class PerFileGroupSync final : public GroupSync {
 public:
  bool covers(const std::string&) override { return true; }
  void sync(std::span<File* const> files, std::span<Status> results) override;
};

}  // namespace spillway::storage
