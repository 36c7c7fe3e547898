// Position files: 8 bytes of magic, the big-endian segment base offset and
// byte position, and a CRC-32C of those 24 bytes, so a torn write reads as
// "no file" (which only costs a longer check at the next open).
#include "log_markers.h"

#include <spdlog/spdlog.h>

#include <array>
#include <cstring>

#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"

namespace spillway::storage {
namespace {

constexpr char kMagic[8] = {'S', 'P', 'W', 'L', 'P', 'O', 'S', '1'};
constexpr std::size_t kSize = 28;

}  // namespace

std::optional<LogPosition> read_log_position(FileSystem& fs, const std::string& path) {
  if (!fs.exists(path)) return std::nullopt;
  Result<std::unique_ptr<File>> file = fs.open(path, OpenMode::kExisting);
  std::array<std::byte, kSize> buf;
  Status st = file.ok() ? read_exact(**file, buf, 0) : file.status();
  if (st.ok()) {
    Result<uint64_t> size = (*file)->size();
    if (!size.ok() || *size != kSize) st = Status(ErrorCode::kCorruptMessage, "wrong size");
  }
  if (st.ok() && (std::memcmp(buf.data(), kMagic, 8) != 0 ||
                  crc32c(std::span(buf).first(24)) != load_be<uint32_t>(buf.data() + 24))) {
    st = Status(ErrorCode::kCorruptMessage, "bad magic or checksum");
  }
  if (!st.ok()) {
    spdlog::warn("{}: unreadable ({}); ignoring it", path, st.to_string());
    return std::nullopt;
  }
  LogPosition pos;
  pos.segment = load_be<int64_t>(buf.data() + 8);
  pos.position = load_be<uint64_t>(buf.data() + 16);
  return pos;
}

Status write_log_position(FileSystem& fs, const std::string& path, LogPosition pos,
                          PositionSync sync) {
  std::array<std::byte, kSize> buf;
  std::memcpy(buf.data(), kMagic, 8);
  store_be<int64_t>(buf.data() + 8, pos.segment);
  store_be<uint64_t>(buf.data() + 16, pos.position);
  store_be<uint32_t>(buf.data() + 24, crc32c(std::span(buf).first(24)));
  Result<std::unique_ptr<File>> file = fs.open(path, OpenMode::kCreate);
  if (!file.ok()) return std::move(file).take_status();
  SPILLWAY_RETURN_IF_ERROR(write_all(**file, buf, 0));
  SPILLWAY_RETURN_IF_ERROR((*file)->truncate(kSize));
  return sync == PositionSync::kSync ? (*file)->sync_data() : Status::Ok();
}

}  // namespace spillway::storage
