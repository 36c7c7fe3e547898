// A FileSystem that keeps at most a configured number of the files it
// opened open at once (docs/log-storage.md, "Open files").
//
// Every partition log holds a log and an index file per segment. Kept open
// for good, 10,000 partitions need 20,000 descriptors and the broker dies on
// EMFILE long before memory runs short. Here each File opened through this
// file system owns its descriptor only while it is among the `max_open` most
// recently used: a file evicted from that set is closed and reopened by path
// on its next use. The active segment of a busy partition stays open; a cold
// one costs its path and a few words.
//
// In-flight operations hold the descriptor they use (shared_ptr), so an
// eviction never closes a file under a running pread or fdatasync; the set
// can exceed `max_open` by at most the number of operations running at that
// instant. File::held_descriptor() hands such a hold to a caller that sends
// from the descriptor later (a fetch response's sendfile): descriptors open
// can then exceed `max_open` by those holds too, each of which lives until
// its response is written (at most a few per connection, see
// protocol/exchange.h, kMaxFileRanges). fdatasync after a reopen covers the
// writes made through the old descriptor: the page cache, and its
// write-back errors, belong to the inode.
//
// A file that is about to lose its name (a segment deleted by retention while
// a fetch still reads it) is pinned with File::hold_open() and is never
// evicted; it closes when its last owner lets go.
//
// Thread-safe: one mutex guards the set; the hit path takes it, moves the
// file to the front of a list and copies one shared_ptr. No allocation.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "spillway/storage/file_system.h"

namespace spillway::storage {

class BoundedFile;

class BoundedFileSystem final : public FileSystem {
 public:
  // `inner` opens and closes the real files and must outlive this one and
  // every File it opened. `max_open` >= 1.
  BoundedFileSystem(FileSystem& inner, std::size_t max_open);
  ~BoundedFileSystem() override;

  Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) override;
  Status remove(const std::string& path) override { return inner_.remove(path); }
  Status remove_all(const std::string& path) override { return inner_.remove_all(path); }
  Status rename(const std::string& from, const std::string& to) override {
    return inner_.rename(from, to);
  }
  Result<std::vector<std::string>> list_dir(const std::string& dir) override {
    return inner_.list_dir(dir);
  }
  Status create_dirs(const std::string& dir) override { return inner_.create_dirs(dir); }
  Status sync_dir(const std::string& dir) override { return inner_.sync_dir(dir); }
  Status sync_dirs(const std::vector<std::string>& dirs) override { return inner_.sync_dirs(dirs); }
  // The inner file system's: its whole-file-system sync needs no descriptor
  // of the files (theirs are reopened only for a per-file fallback).
  Result<std::unique_ptr<GroupSync>> open_group_sync(const std::string& dir) override {
    return inner_.open_group_sync(dir);
  }
  bool exists(const std::string& path) override { return inner_.exists(path); }
  bool is_directory(const std::string& path) override { return inner_.is_directory(path); }
  Result<std::string> read_file(const std::string& path) override { return inner_.read_file(path); }
  Result<int64_t> modified_time_ms(const std::string& path) override {
    return inner_.modified_time_ms(path);
  }

  std::size_t max_open() const { return max_open_; }
  // Files holding a descriptor now (evictable and pinned).
  std::size_t open_files() const;
  // Reopens of evicted files since start: how often the limit cost a
  // syscall pair. Grows steadily when the busy files outnumber max_open.
  uint64_t reopens() const { return reopens_.load(std::memory_order_relaxed); }

 private:
  friend class BoundedFile;

  // The descriptor of `file` (reopened if evicted), marked most recently
  // used. Error when the reopen fails (the file was deleted, EMFILE).
  Result<std::shared_ptr<File>> acquire(BoundedFile& file);
  // Makes `file` unevictable, opening it if needed.
  Status pin(BoundedFile& file);
  // Forgets `file` (its destructor).
  void release(BoundedFile& file);
  // With mu_ held: opens an evicted `file` by its path again (not linked).
  Status reopen_locked(BoundedFile& file);
  // With mu_ held: closes least recently used files until one more fits.
  void make_room_locked();
  void link_front_locked(BoundedFile& file);
  void unlink_locked(BoundedFile& file);

  FileSystem& inner_;
  const std::size_t max_open_;
  mutable std::mutex mu_;
  // Evictable open files, most recently used first (intrusive list).
  BoundedFile* head_ = nullptr;
  BoundedFile* tail_ = nullptr;
  std::size_t linked_ = 0;
  std::size_t pinned_ = 0;
  std::atomic<uint64_t> reopens_{0};
};

// The descriptor budget for log files when none is configured: what the
// process's RLIMIT_NOFILE leaves after `max_connections` sockets and
// `reserve` other descriptors (listeners, etcd, metadata files); half the
// limit (at least 16) when that leaves fewer than 64.
std::size_t default_max_open_log_files(uint64_t nofile_limit, uint64_t max_connections,
                                       uint64_t reserve = 256);

// Raises the soft RLIMIT_NOFILE to the hard limit (as Go's runtime and most
// servers do at start; the hard limit is the operator's decision). Returns
// the soft limit in force afterwards.
uint64_t raise_open_file_limit();
// The soft RLIMIT_NOFILE as it is.
uint64_t current_open_file_limit();

}  // namespace spillway::storage
