// An in-memory FileSystem for storage and broker tests: injects short
// writes, ENOSPC, EIO, fsync, rename and removal failures, and can simulate a
// power loss (every file falls back to what was last synced; files whose
// creation or rename was never made durable by a directory sync disappear,
// and files whose removal or rename away was not made durable come back
// with their synced bytes). A crash point (Faults::ops_until_crash) stops
// every change after the n-th, so a test can lose power at each step of an
// operation.
//
// Thread-safe (one mutex). Paths are plain strings. A directory exists once
// create_dirs() made it or while a file or directory lies below it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "spillway/storage/file_system.h"

namespace spillway::storage::testing {

class MemoryFileSystem final : public FileSystem {
 public:
  struct Faults {
    // Total bytes all files may hold; a write past it writes what fits (a
    // short write) and the next one fails with ENOSPC.
    uint64_t capacity_bytes = UINT64_MAX;
    // Every write stores at most this many bytes (short writes).
    std::size_t max_write_chunk = SIZE_MAX;
    // Writes fail with EIO while set.
    bool fail_writes = false;
    // sync_data and sync_dir fail with EIO while set.
    bool fail_sync = false;
    // sync_dir alone fails with EIO while set.
    bool fail_sync_dir = false;
    // rename fails with EIO while set.
    bool fail_renames = false;
    // remove_all fails with EBUSY while set (nothing is removed).
    bool fail_removes = false;
    // When >= 0: this many more changes (write, truncate, sync_data,
    // sync_dir, remove, rename, creating open) succeed; every later one
    // fails with EIO and changes nothing, as if the machine had stopped.
    int64_t ops_until_crash = -1;
    // Called (without the lock) at the start of every sync_data; tests use
    // it to hold a sync until other threads have appended.
    std::function<void()> on_sync;
  };

  Faults& faults() { return faults_; }

  Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) override;
  Status remove(const std::string& path) override;
  Status remove_all(const std::string& path) override;
  Status rename(const std::string& from, const std::string& to) override;
  Result<std::vector<std::string>> list_dir(const std::string& dir) override;
  Status create_dirs(const std::string& dir) override;
  Status sync_dir(const std::string& dir) override;
  bool exists(const std::string& path) override;
  bool is_directory(const std::string& path) override;
  Result<std::string> read_file(const std::string& path) override;
  Result<int64_t> modified_time_ms(const std::string& path) override;
  // A group that syncs the data of every file at once, as syncfs(2) does
  // (counted by group_sync_count()); while fail_sync is set the one call
  // fails and each file is synced on its own, as PosixFileSystem's does.
  Result<std::unique_ptr<GroupSync>> open_group_sync(const std::string& dir) override;

  // Test access to a file's current bytes; empty vector when missing.
  std::vector<std::byte> contents(const std::string& path);
  // Replaces a file's bytes (creating it, as durable), for corrupting logs.
  void set_contents(const std::string& path, std::vector<std::byte> bytes);
  // Sets a file's modification time.
  void set_mtime(const std::string& path, int64_t ms);
  // Bytes held by all files.
  uint64_t used_bytes();
  // Power loss: unsynced writes and undurable creations vanish.
  void simulate_power_loss();
  // How many sync_data calls succeeded.
  uint64_t sync_count();
  // How many whole-file-system syncs of open_group_sync()'s groups succeeded.
  uint64_t group_sync_count();
  // How many bytes read_at has returned, over all files.
  uint64_t bytes_read();
  // How many changes (the operations ops_until_crash counts) succeeded.
  uint64_t change_count();
  // The ranges advise_will_need asked for, over all files, in order.
  std::vector<std::pair<uint64_t, uint64_t>> advised();

  struct Node {
    std::vector<std::byte> data;
    std::vector<std::byte> synced;
    bool name_durable = false;
    int64_t mtime_ms = 0;
  };

 private:
  friend class MemoryFile;
  friend class MemoryGroupSync;
  // Every file's data durable at once; false (nothing synced) while
  // fail_sync is set or past the crash point.
  bool sync_all_files();
  bool is_directory_locked(const std::string& path) const;
  // Counts a change against ops_until_crash; false once the crash point
  // is reached (the caller then fails without changing anything).
  bool allow_change_locked();
  // Keeps a durable name that is going away until its directory is synced.
  void remember_removed_locked(const std::string& path, const std::shared_ptr<Node>& node);
  std::mutex mu_;
  Faults faults_;
  std::map<std::string, std::shared_ptr<Node>> files_;
  std::set<std::string> dirs_;  // made by create_dirs
  // Durable names removed (or renamed away) since their directory's last
  // sync: a power loss brings them back.
  std::map<std::string, std::shared_ptr<Node>> removed_;
  uint64_t change_count_ = 0;
  uint64_t sync_count_ = 0;
  uint64_t group_sync_count_ = 0;
  uint64_t bytes_read_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> advised_;
  int64_t clock_ = 1;
};

}  // namespace spillway::storage::testing
