// Reading a record's value from a file (value_file.h).
#include "value_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace spillway::cli {

Result<std::vector<std::byte>> read_value_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec) return Status(ErrorCode::kIoError, "cannot open '" + path + "': " + ec.message());
  if (!std::filesystem::is_regular_file(status)) {
    return Status(ErrorCode::kInvalidArgument, "'" + path + "' is not a regular file");
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status(ErrorCode::kIoError, "cannot open '" + path + "': " + ec.message());
  if (size > max_bytes) {
    return Status(ErrorCode::kInvalidArgument, "'" + path + "' is " + std::to_string(size) +
                                                   " bytes, more than a record may carry (" +
                                                   std::to_string(max_bytes) +
                                                   " bytes with its key and headers)");
  }
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                             &std::fclose);
  if (!file) {
    return Status(ErrorCode::kIoError, "cannot open '" + path + "': " + std::strerror(errno));
  }
  std::vector<std::byte> bytes(static_cast<size_t>(size));
  const size_t read = std::fread(bytes.data(), 1, bytes.size(), file.get());
  // One byte more than the size seen means the file grew meanwhile.
  if (read != bytes.size() || std::fgetc(file.get()) != EOF) {
    return Status(ErrorCode::kIoError,
                  "cannot read '" + path + "' whole (a read failed, or it changed size)");
  }
  return bytes;
}

}  // namespace spillway::cli
