// Opening a partition directory: find the segments, recover them, and drop
// leftovers of interrupted roll or retention. See docs/log-storage.md.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "clean_marker.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

// Parses "<20 digits><ext>"; -1 when `name` is not such a name.
int64_t parse_segment_name(const std::string& name, std::string_view ext) {
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
  Result<std::vector<std::string>> names = fs_.list_dir(dir_);
  if (!names.ok()) return std::move(names).take_status();
  std::vector<int64_t> bases;
  std::vector<int64_t> index_bases;
  for (const std::string& name : *names) {
    if (int64_t b = parse_segment_name(name, ".log"); b >= 0) bases.push_back(b);
    if (int64_t b = parse_segment_name(name, ".index"); b >= 0) index_bases.push_back(b);
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
  if (!clean && !bases.empty()) {
    spdlog::info("partition log {}: no clean-shutdown marker; verifying the last segment", dir_);
  }
  for (std::size_t i = 0; i < bases.size(); ++i) {
    // Segments before the last were fsynced when they rolled, so only the
    // last one can hold a torn or unsynced tail after a crash.
    const bool last = i + 1 == bases.size();
    const SegmentCheck check = (clean || !last) ? SegmentCheck::kTrustIndex : SegmentCheck::kVerify;
    Result<std::unique_ptr<Segment>> seg = Segment::open(fs_, dir_, bases[i], config_, check, now);
    if (!seg.ok()) return std::move(seg).take_status();
    if (!segments_.empty() && (*seg)->base_offset() != segments_.back()->next_offset()) {
      // A gap means an earlier segment lost batches (it was cut during
      // verification); later offsets would no longer be dense. Keep the
      // consistent prefix and drop the rest, loudly.
      spdlog::error(
          "partition log {}: segment {} starts at {} but the previous one ends at {}; deleting "
          "it and every later segment",
          dir_, Segment::log_path(dir_, bases[i]), bases[i], segments_.back()->next_offset());
      for (std::size_t j = i; j < bases.size(); ++j) {
        SPILLWAY_RETURN_IF_ERROR(fs_.remove(Segment::log_path(dir_, bases[j])));
        (void)fs_.remove(Segment::index_path(dir_, bases[j]));
      }
      dir_changed = true;
      break;
    }
    segments_.push_back(std::move(*seg));
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
  if (dir_changed) SPILLWAY_RETURN_IF_ERROR(fs_.sync_dir(dir_));
  next_offset_ = segments_.back()->next_offset();
  durable_offset_ = next_offset_;
  writeback_requested_ = segments_.back()->size();  // recovered bytes are synced
  last_flush_ms_ = now;
  spdlog::info("partition log {}: opened {} segment(s), offsets [{}, {})", dir_, segments_.size(),
               log_start_offset(), next_offset_);
  return Status::Ok();
}

}  // namespace spillway::storage
