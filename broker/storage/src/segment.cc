// Segment: append, read-range lookup, sync and removal of one segment's files.
// Opening and recovery live in segment_recovery.cc.
#include "spillway/storage/segment.h"

#include <algorithm>
#include <cstdio>

#include "header_window.h"

namespace spillway::storage {
namespace {

std::string segment_name(const std::string& dir, int64_t base_offset, const char* ext) {
  char name[40];
  std::snprintf(name, sizeof(name), "/%020lld%s", static_cast<long long>(base_offset), ext);
  return dir + name;
}

}  // namespace

std::string Segment::log_path(const std::string& dir, int64_t base_offset) {
  return segment_name(dir, base_offset, ".log");
}

std::string Segment::log_name(int64_t base_offset) {
  return segment_name("", base_offset, ".log").substr(1);
}

int64_t Segment::parse_name(const std::string& name, std::string_view ext) {
  if (name.size() != 20 + ext.size() || name.compare(20, ext.size(), ext) != 0) return -1;
  int64_t value = 0;
  for (int i = 0; i < 20; ++i) {
    const char c = name[i];
    if (c < '0' || c > '9') return -1;
    if (value > (INT64_MAX - (c - '0')) / 10) return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::string Segment::index_path(const std::string& dir, int64_t base_offset) {
  return segment_name(dir, base_offset, ".index");
}

Segment::Segment(FileSystem& fs, std::string dir, int64_t base_offset, const LogConfig& config,
                 std::shared_ptr<File> log, std::unique_ptr<File> index_file)
    : fs_(fs),
      dir_(std::move(dir)),
      base_offset_(base_offset),
      config_(config),
      log_(std::move(log)),
      index_file_(std::move(index_file)),
      index_(base_offset),
      next_offset_(base_offset) {}

void Segment::reserve_index_for_appends() {
  // Room for every entry a full segment can need (it may overshoot by one
  // batch), so appends never grow the vector. Fresh large blocks are backed
  // lazily by the kernel, so untouched entries cost address space rather
  // than memory. Absurdly dense indexes are capped and grow amortized.
  constexpr uint64_t kMaxReserved = 1u << 20;  // 8 MiB of entries
  const uint64_t most =
      (config_.segment_bytes + config_.max_batch_bytes) / config_.index_interval_bytes + 2;
  index_.reserve(static_cast<std::size_t>(std::min(most, kMaxReserved)));
}

Result<std::unique_ptr<Segment>> Segment::create(FileSystem& fs, const std::string& dir,
                                                 int64_t base_offset, const LogConfig& config,
                                                 int64_t now_ms) {
  Result<std::unique_ptr<File>> log = fs.open(log_path(dir, base_offset), OpenMode::kCreate);
  if (!log.ok()) return std::move(log).take_status();
  SPILLWAY_RETURN_IF_ERROR((*log)->truncate(0));
  Result<std::unique_ptr<File>> index = fs.open(index_path(dir, base_offset), OpenMode::kCreate);
  if (!index.ok()) return std::move(index).take_status();
  SPILLWAY_RETURN_IF_ERROR((*index)->truncate(0));
  std::unique_ptr<Segment> seg(new Segment(
      fs, dir, base_offset, config, std::shared_ptr<File>(std::move(*log)), std::move(*index)));
  seg->created_ms_ = now_ms;
  seg->last_write_ms_ = now_ms;
  seg->reserve_index_for_appends();
  return seg;
}

Status Segment::append(std::span<const std::byte> batch, int64_t base_offset, int64_t last_offset,
                       int64_t now_ms) {
  const uint64_t position = size_;
  Status st = write_all(*log_, batch, position);
  if (!st.ok()) {
    // Cut the torn tail so the file matches size_ again. If even that fails
    // the tail is harmless: reads stop at size_, the next append overwrites
    // it, and recovery cuts it after a crash.
    (void)log_->truncate(position);
    return st;
  }
  if (position > 0 && bytes_since_index_ >= config_.index_interval_bytes) {
    index_.add(base_offset, position);
    bytes_since_index_ = 0;
  }
  bytes_since_index_ += batch.size();
  size_ += batch.size();
  next_offset_ = last_offset + 1;
  last_write_ms_ = now_ms;
  return Status::Ok();
}

Result<SegmentRange> Segment::read(int64_t offset, uint64_t max_bytes, int64_t end_offset) {
  SegmentRange out;
  out.first_offset = offset;
  out.next_offset = offset;
  if (offset >= next_offset_ || offset >= end_offset) return out;
  HeaderWindow window(*log_, size_);
  uint64_t position = index_.lookup(offset).position;
  // Forward to the batch that contains `offset`.
  for (;;) {
    if (position >= size_) return out;
    Result<StoredBatch> b = window.at(position, config_.max_batch_bytes);
    if (!b.ok()) return std::move(b).take_status();
    if (b->base_offset >= end_offset) return out;
    if (b->last_offset >= offset) {
      out.position = position;
      out.length = b->size;
      out.first_offset = b->base_offset;
      out.next_offset = b->last_offset + 1;
      position += b->size;
      break;
    }
    position += b->size;
  }
  // Jump over whole batches with the index: the furthest indexed batch start
  // within max_bytes whose batches before it all lie below end_offset.
  const uint64_t limit = max_bytes >= size_ - out.position ? size_ : out.position + max_bytes;
  IndexEntry jump = index_.lookup_position(limit);
  if (jump.offset > end_offset) jump = index_.lookup(end_offset);
  if (jump.position > position && jump.position <= limit) {
    out.length = jump.position - out.position;
    out.next_offset = jump.offset;
    position = jump.position;
  }
  while (position < size_ && out.next_offset < end_offset) {
    Result<StoredBatch> b = window.at(position, config_.max_batch_bytes);
    if (!b.ok()) return std::move(b).take_status();
    if (out.length + b->size > max_bytes) break;
    out.length += b->size;
    out.next_offset = b->last_offset + 1;
    position += b->size;
  }
  return out;
}

Status Segment::truncate_to(uint64_t position, int64_t next_offset) {
  if (position < size_) {
    SPILLWAY_RETURN_IF_ERROR(log_->truncate(position));
    size_ = position;
  }
  // Synced even when nothing was cut here: the kept bytes must be durable
  // before the truncation counts as done.
  SPILLWAY_RETURN_IF_ERROR(log_->sync_data());
  index_.truncate_to(position);
  SPILLWAY_RETURN_IF_ERROR(index_.persist(*index_file_));
  SPILLWAY_RETURN_IF_ERROR(index_file_->sync_data());
  next_offset_ = next_offset;
  // The append rule counts bytes since the last indexed batch started.
  bytes_since_index_ = size_ - index_.lookup(INT64_MAX).position;
  return Status::Ok();
}

Status Segment::persist_index() {
  return index_.persist(*index_file_);
}

Status Segment::sync_all() {
  SPILLWAY_RETURN_IF_ERROR(log_->sync_data());
  SPILLWAY_RETURN_IF_ERROR(index_.persist(*index_file_));
  return index_file_->sync_data();
}

Status Segment::remove_files() {
  // Reads still in flight (FileSlices share log_) keep reading the unlinked
  // file. Should pinning fail (the file was closed by the open-file bound
  // and cannot be reopened), those reads fail with that error instead;
  // retention does not wait for them.
  if (log_.use_count() > 1) (void)log_->hold_open();
  // The log first: a leftover index without its log is deleted on open,
  // while a log without its index merely gets the index rebuilt.
  SPILLWAY_RETURN_IF_ERROR(fs_.remove(log_path(dir_, base_offset_)));
  return fs_.remove(index_path(dir_, base_offset_));
}

}  // namespace spillway::storage
