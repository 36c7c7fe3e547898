// ProducerIds: DATA_DIR/producer_ids, one decimal number and a newline.
#include "producer_ids.h"

#include <charconv>

namespace spillway::broker {

Result<std::unique_ptr<ProducerIds>> ProducerIds::open(storage::FileSystem& fs,
                                                       std::string data_dir, int64_t node_id) {
  if (node_id < 0 || node_id > kMaxNodeId) {
    return Status(ErrorCode::kInvalidArgument, "node id " + std::to_string(node_id) + " is above " +
                                                   std::to_string(kMaxNodeId) +
                                                   ", the largest that producer ids can carry");
  }
  std::string path = std::move(data_dir) + "/" + kFileName;
  int64_t next = 0;
  if (fs.exists(path)) {
    Result<std::string> text = fs.read_file(path);
    if (!text.ok()) return text.status();
    std::string_view s = *text;
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), next);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty() || next < 0) {
      return Status(ErrorCode::kCorruptMessage,
                    path + " does not hold the next producer id (a decimal number >= 0)");
    }
  }
  return std::unique_ptr<ProducerIds>(
      new ProducerIds(fs, std::move(path), node_id << kCounterBits, next));
}

Result<int64_t> ProducerIds::allocate() {
  std::lock_guard lock(mu_);
  if (next_ == reserved_end_) {
    if (next_ > (int64_t{1} << kCounterBits) - kBlockSize) {
      return Status(ErrorCode::kResourceExhausted, "producer ids are exhausted");
    }
    const int64_t end = next_ + kBlockSize;
    // Recorded before any id of the block is handed out.
    SPILLWAY_RETURN_IF_ERROR(
        storage::write_file_atomically(fs_, path_, std::to_string(end) + "\n"));
    reserved_end_ = end;
  }
  return base_ | next_++;
}

}  // namespace spillway::broker
