// The real file system: pread/pwrite/fdatasync on plain descriptors.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "spillway/storage/file_system.h"

namespace spillway::storage {
namespace {

// sync_dirs() of this many directories or more uses syncfs(2).
constexpr std::size_t kSyncfsFromDirs = 256;
// A GroupSync of this many files or more uses syncfs(2); below it each file
// is synced on its own (syncfs also writes back every other dirty file of
// the file system, which a handful of fdatasyncs need not wait for).
constexpr std::size_t kSyncfsFromFiles = 64;

// One syncfs(2) for many files of one file system. The descriptor is opened
// once, when the group is made, and kept: syncfs reports a write-back error
// to each descriptor that has not seen it yet (Linux 5.8 and later), so an
// error anywhere on the file system after this group was opened is reported
// to its next sync, which then syncs each file on its own to learn which of
// them lost data. A descriptor opened later would miss an error another
// descriptor's syncfs had already seen.
class SyncfsGroupSync final : public GroupSync {
 public:
  SyncfsGroupSync(int fd, dev_t device) : fd_(fd), device_(device) {}
  ~SyncfsGroupSync() override { ::close(fd_); }

  bool covers(const std::string& dir) override {
    struct stat st;
    return ::stat(dir.c_str(), &st) == 0 && st.st_dev == device_;
  }

  void sync(std::span<File* const> files, std::span<Status> results) override {
    if (files.size() >= kSyncfsFromFiles && ::syncfs(fd_) == 0) {
      std::fill(results.begin(), results.end(), Status::Ok());
      return;
    }
    // Few files, or an error somewhere on the file system (not necessarily
    // in these files): each file's own fdatasync says which lost data.
    per_file_.sync(files, results);
  }

 private:
  int fd_;
  dev_t device_;
  PerFileGroupSync per_file_;
};

class PosixFile final : public File {
 public:
  PosixFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixFile() override { ::close(fd_); }

  Result<std::size_t> write_at(std::span<const std::byte> data, uint64_t offset) override {
    for (;;) {
      const ssize_t n = ::pwrite(fd_, data.data(), data.size(), static_cast<off_t>(offset));
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return status_from_errno(errno, "pwrite " + path_);
    }
  }

  Result<std::size_t> read_at(std::span<std::byte> out, uint64_t offset) override {
    for (;;) {
      const ssize_t n = ::pread(fd_, out.data(), out.size(), static_cast<off_t>(offset));
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return status_from_errno(errno, "pread " + path_);
    }
  }

  Status sync_data() override {
    // No EINTR retry: after a failed fdatasync the kernel may have dropped
    // the dirty pages, so a retry that succeeds would lie.
    if (::fdatasync(fd_) != 0) return status_from_errno(errno, "fdatasync " + path_);
    return Status::Ok();
  }

  void advise_will_need(uint64_t offset, uint64_t length) noexcept override {
    (void)::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(length),
                          POSIX_FADV_WILLNEED);
  }

  Status start_writeback(uint64_t offset, uint64_t length) override {
    if (length == 0) return Status::Ok();
    if (::sync_file_range(fd_, static_cast<off64_t>(offset), static_cast<off64_t>(length),
                          SYNC_FILE_RANGE_WRITE) != 0 &&
        errno != EINTR) {
      return status_from_errno(errno, "sync_file_range " + path_);
    }
    return Status::Ok();
  }

  Status truncate(uint64_t size) override {
    for (;;) {
      if (::ftruncate(fd_, static_cast<off_t>(size)) == 0) return Status::Ok();
      if (errno != EINTR) return status_from_errno(errno, "ftruncate " + path_);
    }
  }

  Result<uint64_t> size() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return status_from_errno(errno, "fstat " + path_);
    return static_cast<uint64_t>(st.st_size);
  }

  int native_handle() const noexcept override { return fd_; }

 private:
  int fd_;
  std::string path_;
};

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) override {
    const int flags = O_RDWR | O_CLOEXEC | (mode == OpenMode::kCreate ? O_CREAT : 0);
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) return status_from_errno(errno, "open " + path);
    return std::unique_ptr<File>(std::make_unique<PosixFile>(fd, path));
  }

  Status remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return status_from_errno(errno, "unlink " + path);
    return Status::Ok();
  }

  Status remove_all(const std::string& path) override {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (ec) return status_from_errno(ec.value(), "remove " + path);
    return Status::Ok();
  }

  Status rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return status_from_errno(errno, "rename " + from + " to " + to);
    }
    return Status::Ok();
  }

  Result<std::vector<std::string>> list_dir(const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return status_from_errno(errno, "opendir " + dir);
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d)) {
      const std::string_view name(e->d_name);
      if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    return names;
  }

  Status create_dirs(const std::string& dir) override {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return status_from_errno(ec.value(), "mkdir " + dir);
    return Status::Ok();
  }

  Status sync_dir(const std::string& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return status_from_errno(errno, "open dir " + dir);
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) return status_from_errno(err, "fsync dir " + dir);
    return Status::Ok();
  }

  // Past a few hundred directories one syncfs(2) per file system is much
  // cheaper than an fsync each (10,000 partition directories at start-up:
  // about 1.4 s of fsyncs here). syncfs commits the file system's journal
  // and writes back every dirty inode of it, directories included, and
  // since Linux 5.8 reports write-back errors seen since the descriptor was
  // opened. It also writes back other dirty data of that file system, which
  // is why short lists keep the per-directory fsync.
  Status sync_dirs(const std::vector<std::string>& dirs) override {
    if (dirs.size() < kSyncfsFromDirs) return FileSystem::sync_dirs(dirs);
    std::vector<dev_t> synced;  // file systems already synced
    for (const std::string& dir : dirs) {
      const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) return status_from_errno(errno, "open dir " + dir);
      struct stat st;
      int rc = ::fstat(fd, &st);
      if (rc == 0 && std::find(synced.begin(), synced.end(), st.st_dev) == synced.end()) {
        rc = ::syncfs(fd);
        if (rc == 0) synced.push_back(st.st_dev);
      }
      const int err = errno;
      ::close(fd);
      if (rc != 0) return status_from_errno(err, "syncfs " + dir);
    }
    return Status::Ok();
  }

  Result<std::unique_ptr<GroupSync>> open_group_sync(const std::string& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return status_from_errno(errno, "open dir " + dir);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      return status_from_errno(err, "stat " + dir);
    }
    return std::unique_ptr<GroupSync>(std::make_unique<SyncfsGroupSync>(fd, st.st_dev));
  }

  bool exists(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  }

  bool is_directory(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  Result<std::string> read_file(const std::string& path) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return status_from_errno(errno, "open " + path);
    std::string out;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int err = errno;
        ::close(fd);
        return status_from_errno(err, "read " + path);
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
  }

  Result<int64_t> modified_time_ms(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return status_from_errno(errno, "stat " + path);
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  }
};

}  // namespace

FileSystem& posix_file_system() {
  static PosixFileSystem fs;
  return fs;
}

}  // namespace spillway::storage
