// Opening an existing segment: trust its index and walk the last headers, or
// verify every batch (CRC, dense offsets), cut the file at the first invalid
// or torn batch and rebuild the index. See docs/log-storage.md, "Recovery".
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "header_window.h"
#include "spillway/common/record_batch.h"
#include "spillway/storage/segment.h"

namespace spillway::storage {
namespace {

int32_t get_i32(const std::byte* p) {
  return static_cast<int32_t>((uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
                              (uint32_t(p[2]) << 8) | uint32_t(p[3]));
}

// Sequential reader that keeps at least one whole batch addressable: the
// buffer holds max(1 MiB, max_batch_bytes) bytes, sized before any batch is
// believed, and never more than the file.
class ScanBuffer {
 public:
  ScanBuffer(File& file, uint64_t file_size, uint32_t max_batch_bytes)
      : file_(file), file_size_(file_size) {
    const uint64_t cap = std::max<uint64_t>(1u << 20, max_batch_bytes);
    buf_.resize(std::min<uint64_t>(cap, file_size));
  }

  // Makes up to `n` bytes at the cursor addressable; returns how many are.
  Result<std::size_t> ensure(std::size_t n) {
    if (filled_ - cursor_ >= n) return n;
    if (cursor_ > 0) {
      std::memmove(buf_.data(), buf_.data() + cursor_, filled_ - cursor_);
      start_ += cursor_;
      filled_ -= cursor_;
      cursor_ = 0;
    }
    const uint64_t file_left = file_size_ - (start_ + filled_);
    const std::size_t room = buf_.size() - filled_;
    const std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(room, file_left));
    if (want > 0) {
      SPILLWAY_RETURN_IF_ERROR(
          read_exact(file_, std::span(buf_.data() + filled_, want), start_ + filled_));
      filled_ += want;
    }
    return std::min(n, filled_ - cursor_);
  }

  std::span<const std::byte> at_cursor(std::size_t n) const {
    return std::span<const std::byte>(buf_.data() + cursor_, n);
  }
  void advance(std::size_t n) { cursor_ += n; }
  uint64_t position() const { return start_ + cursor_; }

 private:
  File& file_;
  uint64_t file_size_;
  std::vector<std::byte> buf_;
  uint64_t start_ = 0;  // file position of buf_[0]
  std::size_t filled_ = 0;
  std::size_t cursor_ = 0;
};

}  // namespace

Result<std::unique_ptr<Segment>> Segment::open(FileSystem& fs, const std::string& dir,
                                               int64_t base_offset, const LogConfig& config,
                                               SegmentCheck check, int64_t now_ms) {
  Result<std::unique_ptr<File>> log = fs.open(log_path(dir, base_offset), false);
  if (!log.ok()) return std::move(log).take_status();
  Result<std::unique_ptr<File>> index = fs.open(index_path(dir, base_offset), true);
  if (!index.ok()) return std::move(index).take_status();
  std::unique_ptr<Segment> seg(new Segment(
      fs, dir, base_offset, config, std::shared_ptr<File>(std::move(*log)), std::move(*index)));
  Result<uint64_t> size = seg->log_->size();
  if (!size.ok()) return std::move(size).take_status();
  seg->size_ = *size;
  Result<int64_t> mtime = fs.modified_time_ms(log_path(dir, base_offset));
  seg->last_write_ms_ = mtime.ok() ? *mtime : now_ms;
  // Age-based rolling counts from when this process first saw the segment.
  seg->created_ms_ = now_ms;

  if (check == SegmentCheck::kTrustIndex) {
    Status loaded = seg->index_.load(*seg->index_file_, seg->size_);
    if (loaded.ok()) {
      Result<bool> lined_up = seg->walk_tail();
      if (!lined_up.ok()) return std::move(lined_up).take_status();
      if (*lined_up) return seg;
      spdlog::warn("segment {}: batch headers do not match the file size; verifying it",
                   log_path(dir, base_offset));
    } else {
      spdlog::warn("segment {}: index unusable ({}); rebuilding it", log_path(dir, base_offset),
                   loaded.to_string());
    }
  }
  SPILLWAY_RETURN_IF_ERROR(seg->verify_and_rebuild());
  return seg;
}

Result<bool> Segment::walk_tail() {
  const IndexEntry last = index_.lookup(INT64_MAX);
  HeaderWindow window(*log_, size_);
  uint64_t position = last.position;
  int64_t expected = last.offset;
  uint64_t since_index = 0;
  const std::size_t entries_before = index_.entry_count();
  while (position < size_) {
    Result<StoredBatch> b = window.at(position, config_.max_batch_bytes);
    if (!b.ok()) {
      if (b.status().code() == ErrorCode::kCorruptMessage) return false;
      return std::move(b).take_status();
    }
    if (b->base_offset != expected) return false;
    // The same rule as append: an index that lost entries (deleted, or never
    // written before a crash) gets them back from this walk.
    if (position > 0 && since_index >= config_.index_interval_bytes) {
      index_.add(b->base_offset, position);
      since_index = 0;
    }
    expected = b->last_offset + 1;
    position += b->size;
    since_index += b->size;
  }
  next_offset_ = expected;
  bytes_since_index_ = since_index;
  if (index_.entry_count() != entries_before) {
    spdlog::info("segment {}: restored {} index entries", log_path(dir_, base_offset_),
                 index_.entry_count() - entries_before);
    SPILLWAY_RETURN_IF_ERROR(index_.persist(*index_file_));
    SPILLWAY_RETURN_IF_ERROR(index_file_->sync_data());
  }
  return true;
}

Status Segment::verify_and_rebuild() {
  index_ = OffsetIndex(base_offset_);
  bytes_since_index_ = 0;
  const uint64_t file_size = size_;
  ScanBuffer scan(*log_, file_size, config_.max_batch_bytes);
  int64_t expected = base_offset_;
  uint64_t batches = 0;
  const char* reason = nullptr;
  for (;;) {
    const uint64_t position = scan.position();
    if (position == file_size) break;
    Result<std::size_t> have = scan.ensure(batch::kHeaderSize);
    if (!have.ok()) return std::move(have).take_status();
    if (*have < batch::kHeaderSize) {
      reason = "torn batch header";
      break;
    }
    const int32_t length = get_i32(scan.at_cursor(12).data() + batch::kBatchLengthPos);
    const int64_t total = int64_t{12} + length;
    if (length < int32_t{batch::kHeaderSize - 12} || total > config_.max_batch_bytes) {
      reason = "batch length out of range";
      break;
    }
    have = scan.ensure(static_cast<std::size_t>(total));
    if (!have.ok()) return std::move(have).take_status();
    if (*have < static_cast<std::size_t>(total)) {
      reason = "torn batch";
      break;
    }
    const std::span<const std::byte> bytes = scan.at_cursor(static_cast<std::size_t>(total));
    Result<batch::BatchHeader> header = batch::parse_header(bytes);
    if (!header.ok() || !batch::validate(bytes, config_.max_batch_bytes).ok()) {
      reason = "invalid batch (CRC or structure)";
      break;
    }
    if (header->base_offset != expected || header->last_offset_delta < 0) {
      reason = "offsets not dense";
      break;
    }
    if (position > 0 && bytes_since_index_ >= config_.index_interval_bytes) {
      index_.add(expected, position);
      bytes_since_index_ = 0;
    }
    bytes_since_index_ += static_cast<uint64_t>(total);
    expected = header->base_offset + header->last_offset_delta + 1;
    ++batches;
    scan.advance(static_cast<std::size_t>(total));
  }
  const uint64_t valid = scan.position();
  if (valid < file_size) {
    spdlog::warn(
        "segment {}: {} at position {}; truncating {} bytes (kept {} batches, offsets "
        "[{}, {}))",
        log_path(dir_, base_offset_), reason, valid, file_size - valid, batches, base_offset_,
        expected);
    SPILLWAY_RETURN_IF_ERROR(log_->truncate(valid));
    SPILLWAY_RETURN_IF_ERROR(log_->sync_data());
  }
  size_ = valid;
  next_offset_ = expected;
  SPILLWAY_RETURN_IF_ERROR(index_.rewrite(*index_file_));
  return index_file_->sync_data();
}

}  // namespace spillway::storage
