// PartitionLog: append, read (with verify_reads), the corrupt state, flush
// policy and clean shutdown. Opening and recovery are in
// partition_log_open.cc, retention in partition_log_retention.cc.
#include "spillway/storage/partition_log.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "header_window.h"
#include "log_markers.h"
#include "spillway/common/record_batch.h"
#include "spillway/storage/batch_check.h"

namespace spillway::storage {
namespace {

// Reads of at least this much that stop short of the log's end have the
// kernel read the same amount after them ahead (PartitionLog::read): a
// catching-up consumer's fetches are large, a tailing one's small and at
// the end.
constexpr uint64_t kReadAheadFromBytes = 64 << 10;

}  // namespace

int64_t PartitionLog::system_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

PartitionLog::PartitionLog(FileSystem& fs, std::string dir, LogConfig config, Clock clock)
    : fs_(fs), dir_(std::move(dir)), config_(config), clock_(std::move(clock)) {}

PartitionLog::~PartitionLog() = default;

std::string Corruption::describe() const {
  std::string out;
  if (first_offset >= 0 && end_offset >= 0) {
    out = "offsets [" + std::to_string(first_offset) + ", " + std::to_string(end_offset) + ")";
  } else if (first_offset >= 0) {
    out = "offsets from " + std::to_string(first_offset);
  } else {
    out = "stored batches";
  }
  out += " are damaged (" + reason + ")";
  if (length > 0) {
    out += ": bytes [" + std::to_string(position) + ", " + std::to_string(position + length) +
           ") of segment " + segment;
  } else {
    out += " in segment " + segment + " at byte " + std::to_string(position);
  }
  if (other_ranges > 0) {
    out += "; " + std::to_string(other_ranges) + " more damaged range(s) after it";
  }
  return out;
}

Status read_slice(const FileSlice& slice, std::span<std::byte> out) {
  if (out.size() != slice.length) {
    return Status(ErrorCode::kInvalidArgument, "read_slice: buffer size differs from slice");
  }
  if (slice.length == 0) return Status::Ok();
  return read_exact(*slice.file, out, slice.position);
}

Offset PartitionLog::log_start_offset() const {
  return Offset(segments_.front()->base_offset());
}

Offset PartitionLog::high_watermark() const {
  return Offset(config_.flush_policy == FlushPolicy::kDurable ? durable_offset_ : next_offset_);
}

uint64_t PartitionLog::size_bytes() const {
  uint64_t total = 0;
  for (const auto& s : segments_) total += s->size();
  return total;
}

void PartitionLog::enter_read_only(const Status& cause) {
  if (read_only()) return;
  spdlog::error("partition log {}: {}; the partition is read-only until restart", dir_,
                cause.to_string());
  read_only_reason_ = Status(ErrorCode::kReadOnly, "partition is read-only after a failed sync (" +
                                                       cause.to_string() + ")");
}

void PartitionLog::enter_corrupt(Corruption c, int64_t mark_segment, uint64_t mark_position) {
  if (corrupt()) return;
  spdlog::error(
      "partition log {}: CORRUPT: {}. It serves nothing until it is repaired: stop the broker "
      "and run spillway-broker repair (docs/operations.md)",
      dir_, c.describe());
  corruption_ = std::make_unique<Corruption>(std::move(c));
  if (mark_segment < 0) return;
  // So that a restart checks this place again instead of trusting it.
  Status st = write_log_position(fs_, dir_ + kCorruptMarker, {mark_segment, mark_position});
  if (st.ok()) st = fs_.sync_dir(dir_);
  if (!st.ok()) {
    spdlog::error("partition log {}: could not record the damage for the next start: {}", dir_,
                  st.to_string());
  }
}

Status PartitionLog::corrupt_error() const {
  return Status(ErrorCode::kCorruptMessage, corruption_->describe());
}

Status PartitionLog::enter_corrupt_at(int64_t base, const BadBatch& bad, const char* found_by) {
  Corruption c;
  c.first_offset = bad.base_offset;
  c.end_offset = bad.end_offset;
  c.segment = Segment::log_name(base);
  c.position = bad.position;
  c.length = bad.size;
  c.reason = std::string(bad.reason) + ", found by " + found_by;
  enter_corrupt(std::move(c), base, bad.position);
  return corrupt_error();
}

Status PartitionLog::verify_range(const Segment& seg, const SegmentRange& range) {
  BatchChecker checker(*seg.log_file(), range.position, range.position + range.length,
                       range.first_offset);
  Result<std::optional<BadBatch>> bad = checker.step(UINT64_MAX, thread_check_buffer());
  if (!bad.ok()) return std::move(bad).take_status();
  if (!bad->has_value()) return Status::Ok();
  return enter_corrupt_at(seg.base_offset(), **bad, "a checked read");
}

std::unique_ptr<SealedSegmentCheck> PartitionLog::next_sealed_check() const {
  if (closed_ || corrupt() || verified_segment_ >= segments_.back()->base_offset()) return nullptr;
  for (std::size_t i = 0; i + 1 < segments_.size(); ++i) {
    const Segment& seg = *segments_[i];
    if (seg.base_offset() < verified_segment_) continue;
    return std::make_unique<SealedSegmentCheck>(seg.log_file(), seg.base_offset(), seg.size(),
                                                truncations_);
  }
  return nullptr;
}

std::unique_ptr<SealedSegmentCheck> PartitionLog::sealed_check_from(Offset from) const {
  if (closed_ || corrupt()) return nullptr;
  auto it = std::lower_bound(
      segments_.begin(), segments_.end() - 1, from.value(),
      [](const std::unique_ptr<Segment>& s, int64_t o) { return s->base_offset() < o; });
  if (it == segments_.end() - 1) return nullptr;
  const Segment& seg = **it;
  return std::make_unique<SealedSegmentCheck>(seg.log_file(), seg.base_offset(), seg.size(),
                                              truncations_);
}

VerifiedPointWrite PartitionLog::finish_sealed_check(const SealedSegmentCheck& check,
                                                     const char* found_by) {
  VerifiedPointWrite write;
  if (closed_ || corrupt()) return write;
  // A truncation since may have cut what was checked (and appends put new,
  // unchecked bytes there): its verdict says nothing about the log now.
  if (check.truncations() != truncations_) return write;
  if (const BadBatch* bad = check.damage()) {
    (void)enter_corrupt_at(check.base_offset(), *bad, found_by);
    return write;
  }
  if (check.base_offset() < verified_segment_) return write;
  // The segment after the checked one; the point moves to its start only if
  // no unchecked segment sits between (retention may have deleted some).
  for (std::size_t i = 0; i + 1 < segments_.size(); ++i) {
    if (segments_[i]->base_offset() < verified_segment_) continue;
    if (segments_[i]->base_offset() != check.base_offset()) return write;
    verified_segment_ = segments_[i + 1]->base_offset();
    verified_position_ = 0;
    write.fs = &fs_;
    write.dir = dir_;
    write.segment = verified_segment_;
    write.position = verified_position_;
    write.fence = fence_;
    write.truncations = truncations_;
    return write;
  }
  return write;
}

Status PartitionLog::run_verified_point_write(const VerifiedPointWrite& write) {
  if (!write.needed()) return Status::Ok();
  // Held across the write so that truncate_to() (which lowers the point
  // under the same lock) either comes after it or makes it a no-op.
  std::unique_lock<std::mutex> lock;
  if (write.fence) {
    lock = std::unique_lock(write.fence->mu);
    if (write.fence->truncations != write.truncations) return Status::Ok();
  }
  const std::string path = write.dir + kVerifiedMarker;
  const bool existed = write.fs->exists(path);
  SPILLWAY_RETURN_IF_ERROR(
      write_log_position(*write.fs, path, LogPosition{write.segment, write.position}));
  return existed ? Status::Ok() : write.fs->sync_dir(write.dir);
}

Status PartitionLog::read_only_error() const {
  if (closed_) return Status(ErrorCode::kShuttingDown, "partition log is closed");
  return read_only_reason_;
}

Result<AppendResult> PartitionLog::append(std::span<std::byte> batch, LeaderEpoch leader_epoch) {
  if (closed_ || read_only()) return read_only_error();
  if (corrupt()) return corrupt_error();
  if (batch.size() > config_.max_batch_bytes) {
    return Status(ErrorCode::kBatchTooLarge,
                  "batch of " + std::to_string(batch.size()) + " bytes exceeds max_batch_bytes");
  }
  Result<batch::BatchHeader> header = batch::parse_header(batch);
  if (!header.ok()) return std::move(header).take_status();
  if (header->total_size() != batch.size() || header->last_offset_delta < 0) {
    return Status(ErrorCode::kCorruptMessage, "batch length or offset delta inconsistent");
  }
  if (Status st = before_first_write(); !st.ok()) {
    enter_read_only(st);
    return st;
  }
  const int64_t now = clock_();
  const Segment& active = *segments_.back();
  if (active.size() > 0 && (active.size() + batch.size() > config_.segment_bytes ||
                            now - active.created_ms() >= config_.segment_ms)) {
    SPILLWAY_RETURN_IF_ERROR(roll(now));
  }
  const int64_t base = next_offset_;
  const int64_t last = base + header->last_offset_delta;
  batch::set_base_offset(batch, base);
  batch::set_partition_leader_epoch(batch, leader_epoch.value());
  SPILLWAY_RETURN_IF_ERROR(segments_.back()->append(batch, base, last, now));
  next_offset_ = last + 1;
  unflushed_bytes_ += batch.size();
  if (config_.flush_policy == FlushPolicy::kInterval &&
      (unflushed_bytes_ >= config_.flush_interval_bytes ||
       now - last_flush_ms_ >= config_.flush_interval_ms)) {
    SPILLWAY_RETURN_IF_ERROR(flush());
  }
  return AppendResult{.base_offset = Offset(base), .last_offset = Offset(last)};
}

Result<FileSlice> PartitionLog::read(Offset from, uint64_t max_bytes) {
  if (corrupt()) return corrupt_error();
  int64_t offset = from.value();
  const int64_t hwm = high_watermark().value();
  const int64_t start = log_start_offset().value();
  if (offset < start || offset > hwm) {
    return Status(ErrorCode::kOffsetOutOfRange, "offset " + std::to_string(offset) + " outside [" +
                                                    std::to_string(start) + ", " +
                                                    std::to_string(hwm) + "]");
  }
  // The last segment whose base offset is <= offset.
  auto it = std::upper_bound(
      segments_.begin(), segments_.end(), offset,
      [](int64_t o, const std::unique_ptr<Segment>& s) { return o < s->base_offset(); });
  std::size_t i = static_cast<std::size_t>(it - segments_.begin()) - 1;
  Result<SegmentRange> range = segments_[i]->read(offset, max_bytes, hwm);
  // Past the segment's end but below the next one's base: a gap left by
  // repair. Read on from the first batch after it.
  while (range.ok() && range->length == 0 && offset >= segments_[i]->next_offset() &&
         i + 1 < segments_.size()) {
    ++i;
    offset = segments_[i]->base_offset();
    range = segments_[i]->read(offset, max_bytes, hwm);
  }
  Segment& seg = *segments_[i];
  if (!range.ok()) {
    if (range.status().code() != ErrorCode::kCorruptMessage) return std::move(range).take_status();
    // The headers between the nearest index entry and `offset` do not parse.
    Corruption c;
    c.first_offset = seg.index().lookup(offset).offset;
    c.segment = Segment::log_name(seg.base_offset());
    c.position = seg.index().lookup(offset).position;
    c.reason = "batch headers do not parse (" + std::string(range.status().message()) + ")";
    enter_corrupt(std::move(c), seg.base_offset(), seg.index().lookup(offset).position);
    return corrupt_error();
  }
  if (config_.verify_reads && range->length > 0) {
    SPILLWAY_RETURN_IF_ERROR(verify_range(seg, *range));
  }
  FileSlice slice;
  slice.position = range->position;
  slice.length = range->length;
  slice.first_offset = Offset(range->first_offset);
  slice.next_offset = Offset(range->next_offset);
  if (slice.length > 0) slice.file = seg.log_file();
  // A reader behind the end (catching up, maybe from the disk) will want
  // the next stretch of this segment soon: have the kernel read it now,
  // while this slice is sent. A reader at the end asks nothing.
  if (slice.length >= kReadAheadFromBytes && range->next_offset < next_offset_) {
    seg.log_file()->advise_will_need(slice.position + slice.length, slice.length);
  }
  return slice;
}

Status PartitionLog::for_each_batch_header(
    Offset from, const std::function<void(const batch::BatchHeader&)>& fn) {
  if (corrupt()) return corrupt_error();
  for (const std::unique_ptr<Segment>& seg : segments_) {
    if (seg->next_offset() <= from.value()) continue;
    uint64_t position =
        seg->base_offset() < from.value() ? seg->index().lookup(from.value()).position : 0;
    HeaderWindow window(*seg->log_file(), seg->size());
    while (position < seg->size()) {
      Result<StoredBatch> stored = window.at(position, config_.max_batch_bytes);
      if (!stored.ok()) return stored.status();
      if (stored->last_offset >= from.value()) fn(stored->header);
      position += stored->size;
    }
  }
  return Status::Ok();
}

FlushRequest PartitionLog::begin_flush() {
  FlushRequest request;
  request.target_offset = Offset(next_offset_);
  request.truncations = truncations_;
  if (next_offset_ > durable_offset_ && !read_only() && !closed_) {
    request.file = segments_.back()->log_file();
  }
  return request;
}

Status PartitionLog::run_flush(const FlushRequest& request) {
  if (!request.needed()) return Status::Ok();
  return request.file->sync_data();
}

Status PartitionLog::finish_flush(const FlushRequest& request, Status result) {
  if (!result.ok()) {
    enter_read_only(result);
    return result;
  }
  // Only a sync that actually ran may move the durable offset, and only
  // if no truncation happened since it began (it synced a file that
  // truncate_to() has cut or deleted; the kept bytes it synced itself).
  if (request.needed() && request.truncations == truncations_ &&
      request.target_offset.value() > durable_offset_) {
    durable_offset_ = request.target_offset.value();
  }
  if (durable_offset_ == next_offset_) unflushed_bytes_ = 0;
  last_flush_ms_ = clock_();
  return Status::Ok();
}

Status PartitionLog::flush() {
  if (read_only()) return read_only_error();
  FlushRequest request = begin_flush();
  if (!request.needed()) return Status::Ok();
  return finish_flush(request, run_flush(request));
}

WritebackRequest PartitionLog::begin_writeback(uint64_t min_bytes) {
  WritebackRequest request;
  if (closed_ || read_only()) return request;
  const Segment& active = *segments_.back();
  // A rolled segment starts over (its predecessor was synced whole).
  if (writeback_requested_ > active.size()) writeback_requested_ = 0;
  if (active.size() - writeback_requested_ < std::max<uint64_t>(min_bytes, 1)) return request;
  request.file = active.log_file();
  request.offset = writeback_requested_;
  request.length = active.size() - writeback_requested_;
  writeback_requested_ = active.size();
  return request;
}

Status PartitionLog::run_writeback(const WritebackRequest& request) {
  if (!request.needed()) return Status::Ok();
  return request.file->start_writeback(request.offset, request.length);
}

Status PartitionLog::tick() {
  if (closed_ || read_only() || next_offset_ == durable_offset_) return Status::Ok();
  if (clock_() - last_flush_ms_ < config_.flush_interval_ms) return Status::Ok();
  return flush();
}

Status PartitionLog::roll(int64_t now_ms) {
  // Everything in the outgoing segment becomes durable before the new one
  // exists, so recovery only ever has to verify the last segment.
  Segment& old = *segments_.back();
  Status synced = old.sync_all();
  if (!synced.ok()) {
    enter_read_only(synced);
    return synced;
  }
  durable_offset_ = next_offset_;
  unflushed_bytes_ = 0;
  writeback_requested_ = 0;
  Result<std::unique_ptr<Segment>> seg = Segment::create(fs_, dir_, next_offset_, config_, now_ms);
  if (!seg.ok()) {
    // Leave no half-made files behind; the old segment stays active.
    (void)fs_.remove(Segment::log_path(dir_, next_offset_));
    (void)fs_.remove(Segment::index_path(dir_, next_offset_));
    return std::move(seg).take_status();
  }
  Status dir_synced = fs_.sync_dir(dir_);
  if (!dir_synced.ok()) {
    enter_read_only(dir_synced);
    return dir_synced;
  }
  segments_.push_back(std::move(*seg));
  return Status::Ok();
}

Status PartitionLog::close() {
  if (closed_) return Status::Ok();
  if (corrupt()) {
    // Make earlier appends durable, but write no index and no marker: the
    // files stay as found for repair, and the next open checks again.
    Status st = read_only() ? Status::Ok() : flush();
    closed_ = true;
    return st;
  }
  if (read_only()) {
    closed_ = true;
    return read_only_reason_;  // no marker: the next open verifies
  }
  Status st = flush();
  if (st.ok()) st = segments_.back()->sync_all();
  if (st.ok()) {
    Result<std::unique_ptr<File>> marker = fs_.open(dir_ + kCleanShutdownMarker, OpenMode::kCreate);
    st = marker.ok() ? Status::Ok() : marker.status();
  }
  if (st.ok()) st = fs_.sync_dir(dir_);
  closed_ = true;
  return st;
}

}  // namespace spillway::storage
