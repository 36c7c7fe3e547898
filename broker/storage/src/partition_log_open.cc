// Opening a partition directory: find the segments, check what was not
// verified before, cut a torn tail or open corrupt, and drop leftovers of
// interrupted roll or retention. See docs/log-storage.md, "Recovery on open".
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "log_markers.h"
#include "spillway/common/parallel_for.h"
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
  SPILLWAY_RETURN_IF_ERROR(log->recover(/*defer_dir_sync=*/false));
  return log;
}

std::vector<Result<std::unique_ptr<PartitionLog>>> PartitionLog::open_many(
    FileSystem& fs, const std::vector<std::string>& dirs, const LogConfig& config, unsigned threads,
    Clock clock) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Result<std::unique_ptr<PartitionLog>>> out;
  out.reserve(dirs.size());
  Status valid = config.validate();
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    if (!valid.ok()) {
      out.emplace_back(valid);
    } else {
      out.emplace_back(std::unique_ptr<PartitionLog>(new PartitionLog(fs, dirs[i], config, clock)));
    }
  }
  if (!valid.ok()) return out;
  // A log is touched by one thread at a time.
  parallel_for(out.size(), threads, [&](std::size_t i) {
    if (!out[i].ok()) return;
    if (Status st = (*out[i])->recover(/*defer_dir_sync=*/true); !st.ok()) out[i] = std::move(st);
  });
  // Every log's directory changes were made above; one sync_dirs() makes
  // them durable together (one syncfs for thousands of directories,
  // FileSystem::sync_dirs), and a failure fails every log that waited on it.
  std::vector<std::string> pending;
  for (const auto& log : out) {
    if (log.ok() && (*log)->open_dir_sync_pending_) pending.push_back((*log)->dir_);
  }
  if (!pending.empty()) {
    const Status synced = fs.sync_dirs(pending);
    for (auto& log : out) {
      if (!log.ok() || !(*log)->open_dir_sync_pending_) continue;
      if (synced.ok()) {
        (*log)->open_dir_sync_pending_ = false;
      } else {
        log = synced;
      }
    }
  }

  std::size_t opened = 0, corrupt = 0, synced = 0;
  uint64_t checked = 0;
  for (const auto& log : out) {
    if (!log.ok()) continue;
    ++opened;
    corrupt += (*log)->corrupt() ? 1 : 0;
    synced += (*log)->open_synced_tail_ ? 1 : 0;
    checked += (*log)->open_checked_bytes_;
  }
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  if (!dirs.empty()) {
    spdlog::info(
        "opened {} of {} partition log(s) in {} ms on {} thread(s): {} byte(s) checked, {} "
        "unsynced tail(s) synced, {} corrupt",
        opened, dirs.size(), ms, std::clamp<std::size_t>(dirs.size(), 1, std::max(1u, threads)),
        checked, synced, corrupt);
  }
  return out;
}

Status PartitionLog::sync_open_changes() {
  if (!open_dir_sync_pending_) return Status::Ok();
  SPILLWAY_RETURN_IF_ERROR(fs_.sync_dir(dir_));
  open_dir_sync_pending_ = false;
  return Status::Ok();
}

Status PartitionLog::before_first_write() {
  if (clean_marker_left_) {
    SPILLWAY_RETURN_IF_ERROR(fs_.remove(dir_ + kCleanShutdownMarker));
    clean_marker_left_ = false;
    open_dir_sync_pending_ = true;
  }
  return sync_open_changes();
}

Status PartitionLog::recover(bool defer_dir_sync) {
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
      spdlog::debug("partition log {}: checking the batches after byte {} of segment {}", dir_,
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
    open_checked_bytes_ += (*seg)->size() - scans[i].verified_before;
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
    // The files stay as found, the marker too; before_first_write() removes
    // it should the log be written again (discard_from_damage()).
    clean_marker_left_ = clean;
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
  const bool created = segments_.empty();
  if (created) {
    Result<std::unique_ptr<Segment>> seg = Segment::create(fs_, dir_, 0, config_, now);
    if (!seg.ok()) return std::move(seg).take_status();
    segments_.push_back(std::move(*seg));
    dir_changed = true;
  }
  segments_.back()->reserve_index_for_appends();
  const LogPosition end{segments_.back()->base_offset(), segments_.back()->size()};
  const bool verified_at_end = verified && !damaged_at && !(*verified < end) && !(end < *verified);
  // Whatever survived a process crash sits in the page cache; sync it so
  // durable_offset() can honestly start at the end. Two cases need no sync,
  // since nothing can be in the page cache that is not on disk (a cut, and
  // an index rewritten above, were synced by finish_recovery()):
  //  * a clean stop: close() synced the active segment (log data, then the
  //    index) and only then created the marker; a closed log is written by
  //    nobody, and the marker goes, durably, before the next write
  //    (before_first_write());
  //  * the verified point is the end of the log: every writer of it made the
  //    bytes before it durable first (this open below, after its sync; the
  //    check of sealed segments, which were synced when they rolled;
  //    truncate_to(), which syncs what it keeps; repair, which syncs the
  //    last segment), and nothing was written after it since.
  // A created segment is empty: its existence is the directory's fsync.
  if (!clean && !verified_at_end && !created) {
    SPILLWAY_RETURN_IF_ERROR(segments_.back()->sync_all());
    open_synced_tail_ = true;
  }
  if (clean) {
    // Removed before any append so that a crash from now on is noticed
    // (durably: the directory fsync below, or before_first_write()).
    SPILLWAY_RETURN_IF_ERROR(fs_.remove(marker));
    dir_changed = true;
  }
  // Everything up to the end has now been checked (or was before).
  verified_segment_ = end.segment;
  verified_position_ = end.position;
  if (!verified_at_end) {
    // Written without a sync: the bytes before `end` are durable already
    // (synced above, or by the clean stop), so whatever a crash leaves of
    // this file -- the new position, the older one, or a torn copy that is
    // ignored -- names only durable, checked bytes; losing it costs a longer
    // check, no trust. An fdatasync per partition here was most of a start
    // after writes with thousands of partitions. A .verified that already
    // names the end is not written again.
    dir_changed = dir_changed || !verified;
    SPILLWAY_RETURN_IF_ERROR(
        write_log_position(fs_, dir_ + kVerifiedMarker, end, PositionSync::kNoSync));
  }
  if (dir_changed) {
    open_dir_sync_pending_ = true;
    if (!defer_dir_sync) SPILLWAY_RETURN_IF_ERROR(sync_open_changes());
  }
  next_offset_ = segments_.back()->next_offset();
  durable_offset_ = next_offset_;
  writeback_requested_ = segments_.back()->size();  // recovered bytes are synced
  last_flush_ms_ = now;
  spdlog::debug("partition log {}: opened {} segment(s), offsets [{}, {})", dir_, segments_.size(),
                log_start_offset().value(), next_offset_);
  return Status::Ok();
}

}  // namespace spillway::storage
