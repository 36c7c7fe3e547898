// PartitionLog::truncate_to and the completion of an interrupted truncation
// at open (docs/replication-storage.md, "Truncation").
//
// A truncation changes several files (the cut segment, deleted segments,
// their indexes, the verified point), which no single fsync makes atomic.
// So it is a redo record: the ".truncate" marker, naming the cut, is made
// durable before the first file changes and removed after the last change
// is durable. A crash before the marker leaves the old log; any crash after
// it leaves the marker, and open() redoes the (idempotent) cut first.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "header_window.h"
#include "log_markers.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {

Status PartitionLog::truncate_to(Offset end_offset) {
  if (closed_ || read_only()) return read_only_error();
  if (corrupt()) return corrupt_error();
  const int64_t end = end_offset.value();
  if (end < 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "truncate_to: negative offset " + std::to_string(end));
  }
  if (end >= next_offset_) return Status::Ok();
  if (end <= log_start_offset().value()) {
    // Nothing below `end` is kept: one empty segment based at `end`.
    return cut_log(end, 0, end);
  }
  // The last segment whose base offset is <= end, and the batch in it
  // that contains `end`.
  auto it = std::upper_bound(
      segments_.begin(), segments_.end(), end,
      [](int64_t o, const std::unique_ptr<Segment>& s) { return o < s->base_offset(); });
  const std::size_t i = static_cast<std::size_t>(it - segments_.begin()) - 1;
  const Segment& seg = *segments_[i];
  HeaderWindow window(*seg.log_file(), seg.size());
  uint64_t position = seg.index().lookup(end).position;
  while (position < seg.size()) {
    Result<StoredBatch> b = window.at(position, config_.max_batch_bytes);
    if (!b.ok()) return std::move(b).take_status();
    if (b->last_offset >= end) {
      // At a segment boundary the segment goes whole (as Kafka does) when
      // the one before ends right where it starts.
      if (position == 0 && i > 0 && segments_[i - 1]->next_offset() == b->base_offset) {
        const Segment& prev = *segments_[i - 1];
        return cut_log(prev.base_offset(), prev.size(), b->base_offset);
      }
      return cut_log(seg.base_offset(), position,
                     position == 0 ? seg.base_offset() : b->base_offset);
    }
    position += b->size;
  }
  // `end` lies in a gap repair left after this segment: keep it whole and
  // start an empty segment at `end`.
  return cut_log(end, 0, end);
}

Result<Offset> PartitionLog::discard_from_damage() {
  if (closed_ || read_only()) return read_only_error();
  if (!corrupt()) {
    return Status(ErrorCode::kInvalidArgument, "discard_from_damage: the log is not corrupt");
  }
  const Corruption& c = *corruption_;
  const int64_t base = Segment::parse_name(c.segment, ".log");
  auto seg = std::find_if(segments_.begin(), segments_.end(),
                          [&](const auto& s) { return s->base_offset() == base; });
  if (c.first_offset < 0 || seg == segments_.end()) return corrupt_error();
  // Overlapping segments: which copy of the offsets is right is a question
  // for repair, not something a cut can answer.
  if (seg != segments_.begin() && (*std::prev(seg))->next_offset() > c.first_offset) {
    return corrupt_error();
  }
  const int64_t end = c.first_offset;
  spdlog::warn(
      "partition log {}: discarding offsets {} and after (damaged: {}) to fetch them again", dir_,
      end, c.describe());
  SPILLWAY_RETURN_IF_ERROR(cut_log(base, std::min(c.position, (*seg)->size()), end));
  corruption_.reset();
  const std::string marker = dir_ + kCorruptMarker;
  if (fs_.exists(marker)) {
    // A crash before this leaves a marker at the cut, where nothing is left
    // to check: the next open serves the log as cut.
    Status st = fs_.remove(marker);
    if (st.ok()) st = fs_.sync_dir(dir_);
    if (!st.ok()) {
      enter_read_only(st);
      return st;
    }
  }
  return Offset(end);
}

Status PartitionLog::cut_log(int64_t segment, uint64_t position, int64_t new_end) {
  // From here on, flushes, checks and verified-point writes begun before
  // are stale whatever happens.
  ++truncations_;
  const LogPosition cut{segment, position};
  auto fail = [this](Status st) {
    enter_read_only(st);
    return st;
  };
  if (Status st = before_first_write(); !st.ok()) return fail(st);
  auto kept = std::find_if(segments_.begin(), segments_.end(),
                           [&](const auto& s) { return s->base_offset() == segment; });
  // What is kept must be durable before the marker says the cut happened;
  // sealed segments were synced when they rolled.
  if (kept != segments_.end() && kept->get() == segments_.back().get()) {
    if (Status st = (*kept)->log_file()->sync_data(); !st.ok()) return fail(st);
  }
  Status st = write_log_position(fs_, dir_ + kTruncateMarker, cut);
  if (st.ok()) st = fs_.sync_dir(dir_);
  if (!st.ok()) return fail(st);

  {
    // The verified point never claims bytes past the cut: new bytes
    // appended there later are unchecked.
    std::lock_guard lock(fence_->mu);
    fence_->truncations = truncations_;
    if (cut < LogPosition{verified_segment_, verified_position_}) {
      verified_segment_ = segment;
      verified_position_ = position;
      st = write_log_position(fs_, dir_ + kVerifiedMarker, cut);
      if (!st.ok()) return fail(st);
    }
  }

  if (kept == segments_.end()) {
    // Created before the others go, so the log always has a segment.
    Result<std::unique_ptr<Segment>> made = Segment::create(fs_, dir_, segment, config_, clock_());
    if (!made.ok()) return fail(made.status());
    auto at = std::upper_bound(
        segments_.begin(), segments_.end(), segment,
        [](int64_t o, const std::unique_ptr<Segment>& s) { return o < s->base_offset(); });
    segments_.insert(at, std::move(*made));
  }
  // Newest first, so a failure part-way leaves a log without holes.
  while (segments_.back()->base_offset() > segment) {
    if (Status removed = segments_.back()->remove_files(); !removed.ok()) return fail(removed);
    segments_.pop_back();
  }
  Segment& active = *segments_.back();
  if (Status cut_st = active.truncate_to(position, new_end); !cut_st.ok()) return fail(cut_st);
  active.reserve_index_for_appends();
  st = fs_.sync_dir(dir_);
  if (st.ok()) st = fs_.remove(dir_ + kTruncateMarker);
  if (st.ok()) st = fs_.sync_dir(dir_);
  if (!st.ok()) return fail(st);
  spdlog::info("partition log {}: truncated to offset {} (segment {}, byte {})", dir_, new_end,
               segment, position);
  next_offset_ = new_end;
  durable_offset_ = new_end;
  unflushed_bytes_ = 0;
  writeback_requested_ = active.size();
  return Status::Ok();
}

Status PartitionLog::finish_interrupted_truncation() {
  const std::string marker = dir_ + kTruncateMarker;
  if (!fs_.exists(marker)) return Status::Ok();
  const std::optional<LogPosition> cut = read_log_position(fs_, marker);
  if (!cut) {
    // Torn: the crash came while it was written, before any file changed.
    spdlog::warn("partition log {}: an unfinished truncation marker; the log is as before it",
                 dir_);
    SPILLWAY_RETURN_IF_ERROR(fs_.remove(marker));
    return fs_.sync_dir(dir_);
  }
  spdlog::warn("partition log {}: finishing a truncation a crash interrupted (segment {}, byte {})",
               dir_, cut->segment, cut->position);
  Result<std::vector<std::string>> names = fs_.list_dir(dir_);
  if (!names.ok()) return std::move(names).take_status();
  bool have_segment = false;
  for (const std::string& name : *names) {
    int64_t base = Segment::parse_name(name, ".log");
    if (base < 0) base = Segment::parse_name(name, ".index");
    if (base < 0) continue;
    if (base > cut->segment) {
      SPILLWAY_RETURN_IF_ERROR(fs_.remove(dir_ + "/" + name));
    } else if (base == cut->segment && name.ends_with(".log")) {
      have_segment = true;
    }
  }
  if (have_segment) {
    Result<std::unique_ptr<File>> log =
        fs_.open(Segment::log_path(dir_, cut->segment), OpenMode::kExisting);
    if (!log.ok()) return std::move(log).take_status();
    Result<uint64_t> size = (*log)->size();
    if (!size.ok()) return std::move(size).take_status();
    // Never extended: bytes a crash lost before the cut stay lost (the
    // normal recovery that follows handles a short segment).
    if (*size > cut->position) SPILLWAY_RETURN_IF_ERROR((*log)->truncate(cut->position));
    SPILLWAY_RETURN_IF_ERROR((*log)->sync_data());
    const std::string index_path = Segment::index_path(dir_, cut->segment);
    if (fs_.exists(index_path)) {
      Result<std::unique_ptr<File>> file = fs_.open(index_path, OpenMode::kExisting);
      if (!file.ok()) return std::move(file).take_status();
      OffsetIndex index(cut->segment);
      if (index.load(**file, UINT64_MAX).ok()) {
        index.truncate_to(cut->position);
        SPILLWAY_RETURN_IF_ERROR(index.rewrite(**file));
        SPILLWAY_RETURN_IF_ERROR((*file)->sync_data());
      } else {
        SPILLWAY_RETURN_IF_ERROR(fs_.remove(index_path));  // rebuilt by the open
      }
    }
  } else {
    Result<std::unique_ptr<Segment>> made =
        Segment::create(fs_, dir_, cut->segment, config_, clock_());
    if (!made.ok()) return std::move(made).take_status();
    SPILLWAY_RETURN_IF_ERROR(made.value()->sync_all());
  }
  // No marker may claim bytes past the cut.
  const std::string verified_path = dir_ + kVerifiedMarker;
  if (std::optional<LogPosition> v = read_log_position(fs_, verified_path); v && *cut < *v) {
    SPILLWAY_RETURN_IF_ERROR(write_log_position(fs_, verified_path, *cut));
  }
  const std::string corrupt_path = dir_ + kCorruptMarker;
  if (std::optional<LogPosition> c = read_log_position(fs_, corrupt_path); c && !(*c < *cut)) {
    SPILLWAY_RETURN_IF_ERROR(fs_.remove(corrupt_path));  // the damage it names was cut
  }
  // The stop was not clean: the truncation was still running.
  if (fs_.exists(dir_ + kCleanShutdownMarker)) {
    SPILLWAY_RETURN_IF_ERROR(fs_.remove(dir_ + kCleanShutdownMarker));
  }
  SPILLWAY_RETURN_IF_ERROR(fs_.sync_dir(dir_));
  SPILLWAY_RETURN_IF_ERROR(fs_.remove(marker));
  return fs_.sync_dir(dir_);
}

}  // namespace spillway::storage
