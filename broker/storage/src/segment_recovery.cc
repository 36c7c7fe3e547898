// Opening an existing segment: trust the verified prefix (index plus a walk of
// the last headers) and check every batch after it (CRC, records, dense
// offsets), recording damaged ranges and looking past each for the next
// valid batch. See docs/log-storage.md, "Recovery on open".
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "header_window.h"
#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"
#include "spillway/common/record_batch.h"
#include "spillway/storage/segment.h"

namespace spillway::storage {
namespace {

// Sequential reader that keeps at least one whole batch addressable: the
// buffer holds max(1 MiB, max_batch_bytes) bytes, sized before any batch is
// believed, and never more than the file.
class ScanBuffer {
 public:
  // Reads from `start` on.
  ScanBuffer(File& file, uint64_t file_size, uint32_t max_batch_bytes, uint64_t start)
      : file_(file), file_size_(file_size), start_(start) {
    const uint64_t cap = std::max<uint64_t>(1u << 20, max_batch_bytes);
    buf_.resize(std::min<uint64_t>(cap, file_size - start));
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
  uint64_t start_;  // file position of buf_[0]
  std::size_t filled_ = 0;
  std::size_t cursor_ = 0;
};

// How the batch at the scan cursor fared. Reads at most the batch.
struct Checked {
  const char* reason = nullptr;  // null: valid
  uint64_t size = 0;
  int64_t base_offset = 0;
  int64_t last_offset = 0;
};

// Checks the batch at the cursor: whole, within max_batch_bytes, valid
// (batch::validate: CRC, structure, records) and with a base offset in
// [min_base, max_base].
Result<Checked> check_batch(ScanBuffer& scan, uint32_t max_batch_bytes, int64_t min_base,
                            int64_t max_base) {
  Checked c;
  Result<std::size_t> have = scan.ensure(batch::kHeaderSize);
  if (!have.ok()) return std::move(have).take_status();
  if (*have < batch::kHeaderSize) {
    c.reason = "torn batch header";
    return c;
  }
  const std::byte* p = scan.at_cursor(batch::kHeaderSize).data();
  const int32_t length = load_be<int32_t>(p + batch::kBatchLengthPos);
  const int64_t total = int64_t{batch::kLengthPrefixSize} + length;
  if (length < batch::kMinBatchLength || total > max_batch_bytes) {
    c.reason = "batch length out of range";
    return c;
  }
  if (static_cast<int8_t>(p[batch::kMagicPos]) != batch::kMagic) {
    c.reason = "bad magic byte";
    return c;
  }
  // Cheap before the CRC: the forward search tries every byte position.
  const int64_t base = load_be<int64_t>(p + batch::kBaseOffsetPos);
  const int32_t delta = load_be<int32_t>(p + batch::kLastOffsetDeltaPos);
  if (base < min_base || base > max_base || delta < 0) {
    c.reason = "offsets not dense";
    return c;
  }
  have = scan.ensure(static_cast<std::size_t>(total));
  if (!have.ok()) return std::move(have).take_status();
  if (*have < static_cast<std::size_t>(total)) {
    c.reason = "torn batch";
    return c;
  }
  const std::span<const std::byte> bytes = scan.at_cursor(static_cast<std::size_t>(total));
  // (ensure() may have moved the bytes: read the CRC field from `bytes`.)
  if (crc32c(bytes.subspan(batch::kAttributesPos)) !=
      load_be<uint32_t>(bytes.data() + batch::kCrcPos)) {
    c.reason = "CRC mismatch";
    return c;
  }
  if (!batch::validate(bytes, max_batch_bytes).ok()) {
    c.reason = "records do not decode";
    return c;
  }
  c.size = static_cast<uint64_t>(total);
  c.base_offset = base;
  c.last_offset = base + delta;
  return c;
}

}  // namespace

Result<std::unique_ptr<Segment>> Segment::open(FileSystem& fs, const std::string& dir,
                                               int64_t base_offset, const LogConfig& config,
                                               uint64_t verified_bytes, int64_t now_ms,
                                               SegmentScan* scan) {
  *scan = SegmentScan{};
  Result<std::unique_ptr<File>> log = fs.open(log_path(dir, base_offset), OpenMode::kExisting);
  if (!log.ok()) return std::move(log).take_status();
  Result<std::unique_ptr<File>> index = fs.open(index_path(dir, base_offset), OpenMode::kCreate);
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

  const uint64_t trusted = std::min(verified_bytes, seg->size_);
  scan->verified_before = trusted;
  if (trusted > 0) {
    Status loaded = seg->index_.load(*seg->index_file_, seg->size_);
    if (loaded.ok()) {
      Result<bool> lined_up = seg->walk_trusted(trusted);
      if (!lined_up.ok()) return std::move(lined_up).take_status();
      if (*lined_up) {
        SPILLWAY_RETURN_IF_ERROR(seg->verify_from(trusted, seg->next_offset_, scan));
        seg->keep_matching_index(*scan);
        return seg;
      }
      spdlog::warn(
          "segment {}: batch headers do not line up with the verified size; checking "
          "every batch",
          log_path(dir, base_offset));
    } else {
      spdlog::warn("segment {}: index unusable ({}); rebuilding it", log_path(dir, base_offset),
                   loaded.to_string());
    }
  }
  seg->index_ = OffsetIndex(base_offset);
  seg->index_dirty_ = true;
  seg->bytes_since_index_ = 0;
  SPILLWAY_RETURN_IF_ERROR(seg->verify_from(0, base_offset, scan));
  seg->keep_matching_index(*scan);
  return seg;
}

void Segment::keep_matching_index(const SegmentScan& scan) {
  // The entries for the bytes checked now are rebuilt by the check; after a
  // clean stop the file already holds them (close() persisted and synced
  // them), and rewriting and syncing it again would cost an fsync per
  // partition that was written to. After a crash the open syncs the index
  // with the log (PartitionLog::recover), whatever is decided here.
  if (!index_dirty_ || !scan.damage.empty()) return;
  OffsetIndex on_disk(base_offset_);
  if (!on_disk.load(*index_file_, size_).ok() || !on_disk.same_entries(index_)) return;
  index_.mark_persisted();
  index_dirty_ = false;
}

Result<bool> Segment::walk_trusted(uint64_t limit) {
  // Entries at or past `limit` index batches that are about to be checked.
  const std::size_t loaded = index_.entry_count();
  index_.truncate_to(limit);
  if (index_.entry_count() != loaded) index_dirty_ = true;
  const IndexEntry last = index_.lookup(INT64_MAX);
  HeaderWindow window(*log_, limit);
  uint64_t position = last.position;
  int64_t expected = last.offset;
  uint64_t since_index = 0;
  const std::size_t entries_before = index_.entry_count();
  while (position < limit) {
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
    index_dirty_ = true;
  }
  return true;
}

Status Segment::verify_from(uint64_t position, int64_t expected, SegmentScan* scan_out) {
  if (position >= size_) return Status::Ok();
  ScanBuffer scan(*log_, size_, config_.max_batch_bytes, position);
  for (;;) {
    const uint64_t at = scan.position();
    if (at == size_) break;
    Result<Checked> c = check_batch(scan, config_.max_batch_bytes, expected, expected);
    if (!c.ok()) return std::move(c).take_status();
    if (c->reason == nullptr) {
      if (at > 0 && bytes_since_index_ >= config_.index_interval_bytes) {
        index_.add(c->base_offset, at);
        bytes_since_index_ = 0;
        index_dirty_ = true;
      }
      bytes_since_index_ += c->size;
      expected = c->last_offset + 1;
      scan.advance(static_cast<std::size_t>(c->size));
      continue;
    }
    // Damage. Look for the next batch that is valid and whose base offset
    // could follow: at least `expected`, and not more offsets ahead than
    // bytes were skipped (every record takes bytes). A batch found this way
    // is real data that a cut at `at` would throw away.
    DamagedRange d;
    d.position = at;
    d.end = size_;
    d.first_offset = expected;
    d.reason = c->reason;
    for (;;) {
      scan.advance(1);
      const uint64_t q = scan.position();
      if (q + batch::kHeaderSize > size_) break;
      const int64_t most = expected + static_cast<int64_t>(q - at);
      Result<Checked> next = check_batch(scan, config_.max_batch_bytes, expected, most);
      if (!next.ok()) return std::move(next).take_status();
      if (next->reason == nullptr) {
        d.end = q;
        d.end_offset = next->base_offset;
        break;
      }
    }
    scan_out->damage.push_back(d);
    if (d.torn_tail()) break;
    // Index entries must increase; the batch at d.end starts a fresh count.
    bytes_since_index_ = config_.index_interval_bytes;
    expected = d.end_offset;
    // The scan cursor is at d.end; the loop checks that batch again.
  }
  next_offset_ = expected;
  return Status::Ok();
}

Status Segment::finish_recovery(uint64_t cut_at, int64_t next_offset) {
  if (cut_at < size_) {
    SPILLWAY_RETURN_IF_ERROR(log_->truncate(cut_at));
    SPILLWAY_RETURN_IF_ERROR(log_->sync_data());
    index_.truncate_to(cut_at);
    size_ = cut_at;
    next_offset_ = next_offset;
    index_dirty_ = true;
  }
  if (!index_dirty_) return Status::Ok();
  SPILLWAY_RETURN_IF_ERROR(index_.rewrite(*index_file_));
  SPILLWAY_RETURN_IF_ERROR(index_file_->sync_data());
  index_dirty_ = false;
  return Status::Ok();
}

}  // namespace spillway::storage
