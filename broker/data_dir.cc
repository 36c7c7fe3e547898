// Data directory creation and its advisory lock (flock on DATA_DIR/LOCK).
#include "data_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace spillway::broker {

Result<DataDirLock> DataDirLock::acquire(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec)
    return Status(ErrorCode::kIoError, "cannot create data_dir " + path + ": " + ec.message());
  const std::string lock_path = path + "/LOCK";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status(ErrorCode::kIoError, "cannot open " + lock_path + ": " + std::strerror(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status(ErrorCode::kInvalidArgument, "data_dir " + path +
                                                     " is in use by another spillway-broker (" +
                                                     lock_path + " is locked)");
    }
    return Status(ErrorCode::kIoError, "cannot lock " + lock_path + ": " + std::strerror(err));
  }
  return DataDirLock(fd, path);
}

DataDirLock::~DataDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

}  // namespace spillway::broker
