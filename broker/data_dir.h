// The broker's data directory: created if missing and locked for the life of
// the process, so two brokers never share (and corrupt) one directory.
#pragma once

#include <string>

#include "spillway/common/status.h"

namespace spillway::broker {

class DataDirLock {
 public:
  // Creates `path` (and parents) if needed and takes an exclusive lock on
  // `path`/LOCK. Errors: kIoError when the directory cannot be created or the
  // lock file opened; kInvalidArgument when another process holds the lock.
  static Result<DataDirLock> acquire(const std::string& path);

  DataDirLock(DataDirLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
    other.fd_ = -1;
  }
  DataDirLock& operator=(DataDirLock&&) = delete;
  DataDirLock(const DataDirLock&) = delete;
  ~DataDirLock();  // releases the lock and closes the file

  // The directory, as given.
  const std::string& path() const { return path_; }

 private:
  DataDirLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

}  // namespace spillway::broker
