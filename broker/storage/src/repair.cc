// Offline repair: check every batch of every segment, then cut each damaged
// range out. The valid batches after a damaged range move to a segment of
// their own, named by their (unchanged) base offset, so every segment stays
// dense inside and the log has an offset gap where the damage was. See
// docs/log-storage.md, "Repair".
#include "spillway/storage/repair.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>

#include "log_markers.h"
#include "spillway/storage/segment.h"

namespace spillway::storage {
namespace {

// A run of valid batches inside one segment file.
struct Piece {
  uint64_t begin = 0;      // file position of its first batch
  uint64_t end = 0;        // one past its last batch
  int64_t base = 0;        // base offset of its first batch
  int64_t end_offset = 0;  // one past its last offset
};

// What the check found in one segment.
struct Checked {
  int64_t base = 0;
  uint64_t size = 0;
  SegmentScan scan;
  std::vector<Piece> pieces;
  bool leftover = false;  // a copy an interrupted repair left; rewritten
};

std::vector<Piece> pieces_of(const Checked& c, int64_t next_offset) {
  std::vector<Piece> out;
  uint64_t begin = 0;
  int64_t base = c.base;
  for (const DamagedRange& d : c.scan.damage) {
    if (d.position > begin) {
      out.push_back(
          Piece{.begin = begin, .end = d.position, .base = base, .end_offset = d.first_offset});
    }
    if (d.torn_tail()) return out;
    begin = d.end;
    base = d.end_offset;
  }
  if (begin < c.size) {
    out.push_back(Piece{.begin = begin, .end = c.size, .base = base, .end_offset = next_offset});
  }
  return out;
}

// Copies bytes [begin, end) of `from` to a new segment named by `base`,
// then checks it and writes its index.
Status copy_to_new_segment(FileSystem& fs, const std::string& dir, const LogConfig& config,
                           File& from, const Piece& piece) {
  Result<std::unique_ptr<Segment>> made = Segment::create(fs, dir, piece.base, config, 0);
  if (!made.ok()) return std::move(made).take_status();
  File& to = *(*made)->log_file();
  std::vector<std::byte> chunk(1 << 20);
  for (uint64_t at = piece.begin; at < piece.end;) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<uint64_t>(chunk.size(), piece.end - at));
    SPILLWAY_RETURN_IF_ERROR(read_exact(from, std::span(chunk.data(), n), at));
    SPILLWAY_RETURN_IF_ERROR(write_all(to, std::span(chunk.data(), n), at - piece.begin));
    at += n;
  }
  SPILLWAY_RETURN_IF_ERROR(to.sync_data());
  made->reset();
  SegmentScan scan;
  Result<std::unique_ptr<Segment>> copy = Segment::open(fs, dir, piece.base, config, 0, 0, &scan);
  if (!copy.ok()) return std::move(copy).take_status();
  if (!scan.damage.empty()) {
    return Status(ErrorCode::kIoError, "the copy " + Segment::log_name(piece.base) +
                                           " does not read back intact; nothing was removed");
  }
  return (*copy)->finish_recovery((*copy)->size(), (*copy)->next_offset());
}

// Cuts the segment's log at `size` and rebuilds its index from a full check.
Status cut_segment(FileSystem& fs, const std::string& dir, const LogConfig& config, int64_t base,
                   uint64_t size) {
  {
    Result<std::unique_ptr<File>> log = fs.open(Segment::log_path(dir, base), OpenMode::kExisting);
    if (!log.ok()) return std::move(log).take_status();
    SPILLWAY_RETURN_IF_ERROR((*log)->truncate(size));
    SPILLWAY_RETURN_IF_ERROR((*log)->sync_data());
  }
  SegmentScan scan;
  Result<std::unique_ptr<Segment>> seg = Segment::open(fs, dir, base, config, 0, 0, &scan);
  if (!seg.ok()) return std::move(seg).take_status();
  return (*seg)->finish_recovery((*seg)->size(), (*seg)->next_offset());
}

}  // namespace

Result<RepairReport> repair_partition_log(FileSystem& fs, const std::string& dir,
                                          const LogConfig& config) {
  SPILLWAY_RETURN_IF_ERROR(config.validate());
  Result<std::vector<std::string>> names = fs.list_dir(dir);
  if (!names.ok()) return std::move(names).take_status();
  std::vector<int64_t> bases;
  for (const std::string& name : *names) {
    if (int64_t b = Segment::parse_name(name, ".log"); b >= 0) bases.push_back(b);
  }
  std::sort(bases.begin(), bases.end());

  // 1. Check everything; change nothing yet.
  std::vector<Checked> checked(bases.size());
  std::map<int64_t, std::size_t> piece_owner;  // base of a split-off piece -> its segment
  for (std::size_t i = 0; i < bases.size(); ++i) {
    Checked& c = checked[i];
    c.base = bases[i];
    if (auto owner = piece_owner.find(c.base); owner != piece_owner.end()) {
      // A segment named like a piece of an earlier damaged segment: the
      // copy an interrupted repair made. It is written again below.
      c.leftover = true;
      continue;
    }
    Result<std::unique_ptr<Segment>> seg = Segment::open(fs, dir, c.base, config, 0, 0, &c.scan);
    if (!seg.ok()) return std::move(seg).take_status();
    c.size = (*seg)->size();
    c.pieces = pieces_of(c, (*seg)->next_offset());
    for (std::size_t p = 0; p < c.pieces.size(); ++p) {
      if (c.pieces[p].begin > 0) piece_owner[c.pieces[p].base] = i;
    }
  }
  // Offsets must increase from piece to piece across the whole log, or two
  // segments claim the same offsets and there is no telling which is right.
  int64_t previous_end = -1;
  for (const Checked& c : checked) {
    for (const Piece& p : c.pieces) {
      if (p.base < previous_end) {
        return Status(ErrorCode::kCorruptMessage,
                      "segment " + Segment::log_name(c.base) + " holds offsets from " +
                          std::to_string(p.base) + " that an earlier segment (up to " +
                          std::to_string(previous_end) +
                          ") holds too; repair cannot tell which copy is right; nothing changed");
      }
      previous_end = p.end_offset;
    }
  }

  // 2. Cut. For each damaged segment: first write the split-off pieces as
  // new segments (a crash now leaves copies that the next repair rewrites),
  // then cut or remove the damaged file.
  RepairReport report;
  for (std::size_t i = 0; i < checked.size(); ++i) {
    const Checked& c = checked[i];
    if (c.leftover || c.scan.damage.empty()) continue;
    const bool last = i + 1 == checked.size();
    int64_t next_base = -1;
    for (std::size_t j = i + 1; j < checked.size(); ++j) {
      if (!checked[j].leftover) {
        next_base = checked[j].base;
        break;
      }
    }
    for (const DamagedRange& d : c.scan.damage) {
      RemovedRange r;
      r.segment = Segment::log_name(c.base);
      r.position = d.position;
      r.length = d.end - d.position;
      r.first_offset = d.first_offset;
      r.end_offset = d.torn_tail() ? next_base : d.end_offset;
      r.reason = d.reason;
      report.removed.push_back(std::move(r));
    }
    Result<std::unique_ptr<File>> log =
        fs.open(Segment::log_path(dir, c.base), OpenMode::kExisting);
    if (!log.ok()) return std::move(log).take_status();
    bool keeps_start = false;
    for (const Piece& p : c.pieces) {
      if (p.begin == 0) {
        keeps_start = true;
        continue;
      }
      SPILLWAY_RETURN_IF_ERROR(copy_to_new_segment(fs, dir, config, **log, p));
      report.created_segments.push_back(Segment::log_name(p.base));
    }
    SPILLWAY_RETURN_IF_ERROR(fs.sync_dir(dir));
    const bool anything_after = next_base >= 0 || c.pieces.size() > (keeps_start ? 1u : 0u);
    if (keeps_start) {
      SPILLWAY_RETURN_IF_ERROR(cut_segment(fs, dir, config, c.base, c.pieces.front().end));
    } else if (last && !anything_after) {
      // Nothing valid at all in the last segment: keep it, empty, so the
      // log still ends there.
      SPILLWAY_RETURN_IF_ERROR(cut_segment(fs, dir, config, c.base, 0));
    } else {
      SPILLWAY_RETURN_IF_ERROR(fs.remove(Segment::log_path(dir, c.base)));
      (void)fs.remove(Segment::index_path(dir, c.base));
    }
    SPILLWAY_RETURN_IF_ERROR(fs.sync_dir(dir));
  }

  // 3. Every batch left was checked: record that, and drop the marker of
  // damage found at run time.
  names = fs.list_dir(dir);
  if (!names.ok()) return std::move(names).take_status();
  int64_t last_base = -1;
  for (const std::string& name : *names)
    last_base = std::max(last_base, Segment::parse_name(name, ".log"));
  if (last_base >= 0) {
    Result<std::unique_ptr<File>> log =
        fs.open(Segment::log_path(dir, last_base), OpenMode::kExisting);
    if (!log.ok()) return std::move(log).take_status();
    Result<uint64_t> size = (*log)->size();
    if (!size.ok()) return std::move(size).take_status();
    // Bytes before a verified point are durable (docs/log-storage.md): an
    // open that finds the point at the end of the log does not sync it. The
    // last segment may still hold the unsynced tail of a crash.
    SPILLWAY_RETURN_IF_ERROR((*log)->sync_data());
    SPILLWAY_RETURN_IF_ERROR(
        write_log_position(fs, dir + kVerifiedMarker, LogPosition{last_base, *size}));
  }
  if (fs.exists(dir + kCorruptMarker)) SPILLWAY_RETURN_IF_ERROR(fs.remove(dir + kCorruptMarker));
  SPILLWAY_RETURN_IF_ERROR(fs.sync_dir(dir));
  return report;
}

}  // namespace spillway::storage
