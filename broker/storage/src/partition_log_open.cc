// Opening a partition directory: find the segments, check what was not
// verified before, cut a torn tail or open corrupt, and drop leftovers of
// interrupted roll or retention. See docs/log-storage.md, "Recovery on open".
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "log_markers.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

// The corruption report for damaged range `d` of `seg`; `next_base` is the
// base offset of the following segment, or -1.
Corruption describe_damage(const Segment& seg, const DamagedRange& d, int64_t next_base) {
  Corruption c;
  c.first_offset = d.first_offset;
  c.end_offset = d.torn_tail() ? next_base : d.end_offset;
  c.segment = Segment::log_name(seg.base_offset());
  c.position = d.position;
  c.length = d.end - d.position;
  c.reason = d.reason;
  return c;
}

}  // namespace

Result<std::unique_ptr<PartitionLog>> PartitionLog::open(FileSystem& fs, std::string dir,
                                                         LogConfig config, Clock clock) {
  SPILLWAY_RETURN_IF_ERROR(config.validate());
  std::unique_ptr<PartitionLog> log(new PartitionLog(fs, std::move(dir), config, std::move(clock)));
  SPILLWAY_RETURN_IF_ERROR(log->recover());
  return log;
}

Status PartitionLog::recover() {
  SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(dir_));
  // Before anything looks at the files: they are as the cut left them.
  SPILLWAY_RETURN_IF_ERROR(finish_interrupted_truncation());
  Result<std::vector<std::string>> names = fs_.list_dir(dir_);
  if (!names.ok()) return std::move(names).take_status();
  std::vector<int64_t> bases;
  std::vector<int64_t> index_bases;
  for (const std::string& name : *names) {
    if (int64_t b = Segment::parse_name(name, ".log"); b >= 0) bases.push_back(b);
    if (int64_t b = Segment::parse_name(name, ".index"); b >= 0) index_bases.push_back(b);
  }
  std::sort(bases.begin(), bases.end());
  bool dir_changed = false;
  // An index without its log is what an interrupted segment deletion leaves.
  for (int64_t b : index_bases) {
    if (!std::binary_search(bases.begin(), bases.end(), b)) {
      SPILLWAY_RETURN_IF_ERROR(fs_.remove(Segment::index_path(dir_, b)));
      dir_changed = true;
    }
  }

  const std::string marker = dir_ + kCleanShutdownMarker;
  const bool clean = fs_.exists(marker);
  const int64_t now = clock_();
  // Batches before `from` were checked by an earlier open (or repair) and
  // are trusted; every batch after it is checked now. Damage a read found
  // at run time moves `from` back to it, and then nothing found is cut.
  const std::optional<LogPosition> verified = read_log_position(fs_, dir_ + kVerifiedMarker);
  const std::optional<LogPosition> damaged_at = read_log_position(fs_, dir_ + kCorruptMarker);
  LogPosition from = verified.value_or(LogPosition{-1, 0});
  if (damaged_at && *damaged_at < from) from = *damaged_at;
  if (!bases.empty()) {
    if (from.segment < 0) {
      spdlog::info("partition log {}: no verified point; checking every batch", dir_);
    } else {
      spdlog::info("partition log {}: checking the batches after byte {} of segment {}", dir_,
                   from.position, from.segment);
    }
  }
  std::vector<SegmentScan> scans(bases.size());
  for (std::size_t i = 0; i < bases.size(); ++i) {
    const uint64_t verified_bytes = bases[i] < from.segment    ? UINT64_MAX
                                    : bases[i] == from.segment ? from.position
                                                               : 0;
    Result<std::unique_ptr<Segment>> seg =
        Segment::open(fs_, dir_, bases[i], config_, verified_bytes, now, &scans[i]);
    if (!seg.ok()) return std::move(seg).take_status();
    if (bases[i] == from.segment && from.position > (*seg)->size()) {
      spdlog::error("partition log {}: segment {} has {} bytes, fewer than the {} verified before",
                    dir_, Segment::log_path(dir_, bases[i]), (*seg)->size(), from.position);
    }
    segments_.push_back(std::move(*seg));
  }

  // Judge what the checks found. Only a damaged tail of the last segment,
  // in bytes not verified before and with no valid batch after it, is what
  // a crash leaves (a torn or unsynced write) and may be cut. Anything else
  // is decay of stored data: cutting it would throw away every valid batch
  // after it, so the log opens corrupt and the files stay as they are.
  std::vector<Corruption> found;
  const DamagedRange* cut = nullptr;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const Segment& seg = *segments_[i];
    const bool last = i + 1 == segments_.size();
    if (i > 0 && seg.base_offset() < segments_[i - 1]->next_offset()) {
      Corruption c;
      c.first_offset = seg.base_offset();
      c.end_offset = segments_[i - 1]->next_offset();
      c.segment = Segment::log_name(seg.base_offset());
      c.reason = "segment overlaps the offsets of the one before it";
      found.push_back(std::move(c));
    } else if (i > 0 && seg.base_offset() > segments_[i - 1]->next_offset()) {
      spdlog::info("partition log {}: offsets [{}, {}) are absent (a gap left by repair)", dir_,
                   segments_[i - 1]->next_offset(), seg.base_offset());
    }
    const std::vector<DamagedRange>& damage = scans[i].damage;
    for (std::size_t j = 0; j < damage.size(); ++j) {
      const DamagedRange& d = damage[j];
      // After a clean shutdown every write was whole and synced, so damage
      // at the end is decay of acknowledged data, not a torn write: it is
      // reported like any other, for repair, never cut here.
      if (last && j + 1 == damage.size() && d.torn_tail() &&
          d.position >= scans[i].verified_before && !damaged_at && !clean) {
        cut = &d;
      } else {
        found.push_back(describe_damage(seg, d, last ? -1 : segments_[i + 1]->base_offset()));
      }
    }
  }
  if (!found.empty()) {
    Corruption c = std::move(found.front());
    c.other_ranges = found.size() - 1 + (cut != nullptr ? 1 : 0);
    enter_corrupt(std::move(c), -1, 0);
    next_offset_ = segments_.back()->next_offset();
    durable_offset_ = next_offset_;
    last_flush_ms_ = now;
    return Status::Ok();
  }

  for (std::size_t i = 0; i < segments_.size(); ++i) {
    Segment& seg = *segments_[i];
    if (cut != nullptr && i + 1 == segments_.size()) {
      const uint64_t size = seg.size();
      spdlog::warn("segment {}: {} at position {}; cutting the damaged tail of {} bytes (offsets "
                  "from {} on; no valid batch follows it), keeping offsets [{}, {})",
                  Segment::log_path(dir_, seg.base_offset()), cut->reason, cut->position,
                  size - cut->position, cut->first_offset, seg.base_offset(), cut->first_offset);
      SPILLWAY_RETURN_IF_ERROR(seg.finish_recovery(cut->position, cut->first_offset));
    } else {
      SPILLWAY_RETURN_IF_ERROR(seg.finish_recovery(seg.size(), seg.next_offset()));
    }
  }
  if (damaged_at) {
    spdlog::warn(
        "partition log {}: a read found damage at byte {} of segment {} before the last stop, "
        "but every batch from there checks out now; serving it again",
        dir_, damaged_at->position, damaged_at->segment);
    SPILLWAY_RETURN_IF_ERROR(fs_.remove(dir_ + kCorruptMarker));
    dir_changed = true;
  }
  if (segments_.empty()) {
    Result<std::unique_ptr<Segment>> seg = Segment::create(fs_, dir_, 0, config_, now);
    if (!seg.ok()) return std::move(seg).take_status();
    segments_.push_back(std::move(*seg));
    dir_changed = true;
  }
  segments_.back()->reserve_index_for_appends();
  // Whatever survived a process crash sits in the page cache; sync it so
  // durable_offset() can honestly start at the end.
  SPILLWAY_RETURN_IF_ERROR(segments_.back()->sync_all());
  if (clean) {
    // Removed before any append so that a crash from now on is noticed.
    SPILLWAY_RETURN_IF_ERROR(fs_.remove(marker));
    dir_changed = true;
  }
  // Everything up to the end has now been checked (or was before).
  const std::string verified_path = dir_ + kVerifiedMarker;
  dir_changed = dir_changed || !verified;
  verified_segment_ = segments_.back()->base_offset();
  verified_position_ = segments_.back()->size();
  SPILLWAY_RETURN_IF_ERROR(
      write_log_position(fs_, verified_path, {verified_segment_, verified_position_}));
  if (dir_changed) SPILLWAY_RETURN_IF_ERROR(fs_.sync_dir(dir_));
  next_offset_ = segments_.back()->next_offset();
  durable_offset_ = next_offset_;
  writeback_requested_ = segments_.back()->size();  // recovered bytes are synced
  last_flush_ms_ = now;
  spdlog::info("partition log {}: opened {} segment(s), offsets [{}, {})", dir_, segments_.size(),
               log_start_offset().value(), next_offset_);
  return Status::Ok();
}

}  // namespace spillway::storage
