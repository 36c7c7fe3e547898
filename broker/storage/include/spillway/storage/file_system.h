// The file-system seam of the broker (docs/log-storage.md).
//
// Everything in broker/storage, and the topic and offset files of
// broker/core, touch the disk only through `File` and `FileSystem`, so tests
// can swap in an in-memory implementation that tears writes, runs out of
// space or fails fsync on demand. The POSIX implementation is a thin veneer
// over pread/pwrite/fdatasync.
//
// Concurrency: a File may be used from several threads at once as long as the
// callers do not write overlapping ranges (pread/pwrite/fdatasync semantics).
// A FileSystem is stateless from the caller's point of view and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/storage/group_sync.h"

namespace spillway::storage {

// One open file. Owned by whoever opened it; shared (shared_ptr) between a
// segment and any read result that still refers to its bytes, so a segment
// deleted by retention stays readable until the last reader lets go.
class File {
 public:
  virtual ~File() = default;
  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  // Writes up to data.size() bytes at `offset`. Returns how many were written,
  // which may be fewer (a short write) but is > 0 for non-empty data; the
  // error is kNotEnoughSpace for ENOSPC/EDQUOT and kIoError otherwise.
  virtual Result<std::size_t> write_at(std::span<const std::byte> data, uint64_t offset) = 0;

  // Reads up to out.size() bytes at `offset`; returns how many, 0 at end of file.
  virtual Result<std::size_t> read_at(std::span<std::byte> out, uint64_t offset) = 0;

  // Makes every completed write durable (fdatasync). An error means the data
  // written since the last successful sync may be lost; do not retry as if
  // nothing happened.
  virtual Status sync_data() = 0;

  // Starts writing [offset, offset + length) back to the device without
  // waiting for it and without any durability promise (sync_file_range
  // SYNC_FILE_RANGE_WRITE). Lets the `interval` policy spread writeback out
  // so its periodic fdatasync finds little left to do. Files without a
  // device (in-memory) do nothing.
  virtual Status start_writeback(uint64_t offset, uint64_t length) {
    (void)offset;
    (void)length;
    return Status::Ok();
  }

  // Asks the kernel to start reading [offset, offset + length) into the
  // page cache without waiting for it (posix_fadvise POSIX_FADV_WILLNEED):
  // a consumer catching up from the disk then finds its next fetch read
  // while this one is sent. A hint: failures are ignored, and files without
  // a device (in-memory) do nothing.
  virtual void advise_will_need(uint64_t offset, uint64_t length) noexcept {
    (void)offset;
    (void)length;
  }

  // Cuts (or extends with zeros) the file to `size` bytes.
  virtual Status truncate(uint64_t size) = 0;

  // The current size in bytes.
  virtual Result<uint64_t> size() = 0;

  // The kernel descriptor for zero-copy paths (sendfile, preadv from a
  // network layer), or -1 when the file has none (in-memory files, and files
  // of a BoundedFileSystem, whose descriptor may be closed at any time).
  virtual int native_handle() const noexcept { return -1; }

  // For a file that opens its descriptor on use (bounded_file_system.h):
  // the File holding that descriptor now, which stays open for as long as
  // the result is held, through the file's eviction from the open set and
  // the removal of its name. Null for every other file (see
  // hold_descriptor()). Error when a needed reopen fails.
  virtual Result<std::shared_ptr<File>> held_descriptor() { return std::shared_ptr<File>(); }

  // Keeps the file readable after its name is removed, for as long as this
  // File lives: called before a segment's files are deleted while reads may
  // still use them. A plain descriptor already does that; a file that may
  // be closed and reopened by path (bounded_file_system.h) pins itself open.
  virtual Status hold_open() { return Status::Ok(); }
};

// Writes all of `data` at `offset`, continuing after short writes. On error
// some prefix of `data` may have been written.
Status write_all(File& file, std::span<const std::byte> data, uint64_t offset);

// Reads exactly out.size() bytes at `offset`; kCorruptMessage when the file
// ends first.
Status read_exact(File& file, std::span<std::byte> out, uint64_t offset);

// For zero-copy reads (sendfile to a socket): a File whose native_handle()
// is a descriptor of `file`'s bytes that stays open while the result is
// held, also after `file` is evicted from a BoundedFileSystem's open set or
// its name is removed. `file` itself when it owns its descriptor; null when
// it has none (in-memory files). Error when a needed reopen fails.
Result<std::shared_ptr<File>> hold_descriptor(const std::shared_ptr<File>& file);

// Whether FileSystem::open() creates a missing file.
enum class OpenMode { kExisting, kCreate };

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Opens `path` for reading and writing; with kCreate a missing file is
  // created (empty). kIoError naming the path otherwise.
  virtual Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) = 0;

  // Removes a file. Removing a missing file is an error.
  virtual Status remove(const std::string& path) = 0;

  // Removes `path` and, when it is a directory, everything under it; ok
  // when it does not exist. On error some of it may be gone.
  virtual Status remove_all(const std::string& path) = 0;

  // Renames a file or a directory (rename(2): replaces a file at `to`). The
  // new name is durable once the parent directory is synced (sync_dir).
  virtual Status rename(const std::string& from, const std::string& to) = 0;

  // The names (not paths) of the entries of `dir`, without "." and "..".
  virtual Result<std::vector<std::string>> list_dir(const std::string& dir) = 0;

  // Creates `dir` and any missing parents; ok when it already exists.
  virtual Status create_dirs(const std::string& dir) = 0;

  // fsyncs the directory itself so created/removed names survive a crash.
  virtual Status sync_dir(const std::string& dir) = 0;

  // sync_dir() of every one of `dirs`, as one operation: ok only when all
  // of them are durable. The default syncs them one by one; a file system
  // that can do it in fewer calls (PosixFileSystem: one syncfs(2) per file
  // system for a long list) overrides it. Used where thousands of
  // directories changed at once (opening every partition at start-up).
  virtual Status sync_dirs(const std::vector<std::string>& dirs);

  // A GroupSync for the files of the file system that holds `dir`
  // (group_sync.h), opened now: write-back errors from this moment on are
  // seen by it. The default syncs each file on its own; PosixFileSystem
  // uses one syncfs(2) for a long list. Error when `dir` cannot be opened.
  virtual Result<std::unique_ptr<GroupSync>> open_group_sync(const std::string& dir);

  // True iff `path` names an existing file or directory.
  virtual bool exists(const std::string& path) = 0;

  // True iff `path` names an existing directory.
  virtual bool is_directory(const std::string& path) = 0;

  // The whole content of the file `path`, opened read-only (meant for small
  // files). kIoError naming "open PATH" or "read PATH" and the reason.
  virtual Result<std::string> read_file(const std::string& path) = 0;

  // Last modification time of `path` in milliseconds since the Unix epoch.
  virtual Result<int64_t> modified_time_ms(const std::string& path) = 0;
};

// The process-wide POSIX file system. Never null; lives for the process.
FileSystem& posix_file_system();

// Replaces the file `path` with `contents` so that a crash leaves either the
// old or the new file, never a mix: writes `path`.tmp, syncs it, renames it
// over `path` and syncs the directory. For the broker's small metadata files
// (topic.meta, committed offsets). kIoError / kNotEnoughSpace naming the
// step and the path; on error `path` is as it was (a `path`.tmp may stay).
Status write_file_atomically(FileSystem& fs, const std::string& path, std::string_view contents);

// Maps an errno value to a Status: ENOSPC/EDQUOT become kNotEnoughSpace,
// everything else kIoError. `what` names the operation and the path.
Status status_from_errno(int err, std::string_view what);

}  // namespace spillway::storage
