// Helpers shared by every File and FileSystem implementation: loops over
// short writes and reads, the errno-to-Status mapping, whole small files, and
// descriptors held for zero-copy reads.
#include "spillway/storage/file_system.h"

#include <cerrno>
#include <cstring>

namespace spillway::storage {

Status write_all(File& file, std::span<const std::byte> data, uint64_t offset) {
  while (!data.empty()) {
    Result<std::size_t> n = file.write_at(data, offset);
    if (!n.ok()) return std::move(n).take_status();
    // A zero-length write for non-empty data would loop forever; the contract
    // forbids it, so treat it as an I/O error rather than trusting it.
    if (*n == 0) return Status(ErrorCode::kIoError, "write returned 0 bytes");
    data = data.subspan(*n);
    offset += *n;
  }
  return Status::Ok();
}

Status read_exact(File& file, std::span<std::byte> out, uint64_t offset) {
  while (!out.empty()) {
    Result<std::size_t> n = file.read_at(out, offset);
    if (!n.ok()) return std::move(n).take_status();
    if (*n == 0) return Status(ErrorCode::kCorruptMessage, "file ends before the expected bytes");
    out = out.subspan(*n);
    offset += *n;
  }
  return Status::Ok();
}

Status FileSystem::sync_dirs(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) SPILLWAY_RETURN_IF_ERROR(sync_dir(dir));
  return Status::Ok();
}

Result<std::shared_ptr<File>> hold_descriptor(const std::shared_ptr<File>& file) {
  // A descriptor of its own lives as long as the File, which the caller's
  // reference keeps; a bounded file's may be closed by the next eviction.
  if (file->native_handle() >= 0) return file;
  return file->held_descriptor();
}

Status write_file_atomically(FileSystem& fs, const std::string& path, std::string_view contents) {
  const std::string tmp = path + ".tmp";
  {
    Result<std::unique_ptr<File>> file = fs.open(tmp, OpenMode::kCreate);
    if (!file.ok()) return std::move(file).take_status();
    // A .tmp left by an earlier attempt may be longer than `contents`.
    SPILLWAY_RETURN_IF_ERROR((*file)->truncate(0));
    SPILLWAY_RETURN_IF_ERROR(write_all(**file, std::as_bytes(std::span(contents)), 0));
    SPILLWAY_RETURN_IF_ERROR((*file)->sync_data());
  }
  SPILLWAY_RETURN_IF_ERROR(fs.rename(tmp, path));
  const size_t slash = path.rfind('/');
  return fs.sync_dir(slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash));
}

Status status_from_errno(int err, std::string_view what) {
  std::string message(what);
  message += ": ";
  message += std::strerror(err);
  const ErrorCode code =
      (err == ENOSPC || err == EDQUOT) ? ErrorCode::kNotEnoughSpace : ErrorCode::kIoError;
  return Status(code, std::move(message));
}

}  // namespace spillway::storage
