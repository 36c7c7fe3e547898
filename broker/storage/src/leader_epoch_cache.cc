// LeaderEpochCache: Kafka's leader-epoch semantics over a small CRC'd file.
//
// File (big-endian, docs/replication-storage.md):
//   magic "SPWLEPOC" (8) | version u16 = 1 | count u32 |
//   count x (epoch i32, start offset i64) | CRC-32C u32 of all before it.
#include "spillway/storage/leader_epoch_cache.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"
#include "spillway/common/record_batch.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

constexpr char kMagic[8] = {'S', 'P', 'W', 'L', 'E', 'P', 'O', 'C'};
constexpr uint16_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 8 + 2 + 4;
constexpr std::size_t kEntryBytes = 4 + 8;
constexpr std::size_t kCrcBytes = 4;

std::string file_path(const std::string& dir) {
  return dir + "/" + LeaderEpochCache::kFileName;
}

Status damaged(const std::string& path, const char* why) {
  return Status(ErrorCode::kCorruptMessage, path + ": " + why);
}

}  // namespace

LeaderEpochCache::LeaderEpochCache(FileSystem& fs, std::string dir)
    : fs_(fs), dir_(std::move(dir)) {}

Result<std::unique_ptr<LeaderEpochCache>> LeaderEpochCache::open(FileSystem& fs, std::string dir) {
  std::unique_ptr<LeaderEpochCache> cache(new LeaderEpochCache(fs, std::move(dir)));
  const std::string path = file_path(cache->dir_);
  if (!fs.exists(path)) return cache;
  Result<std::unique_ptr<File>> file = fs.open(path, OpenMode::kExisting);
  if (!file.ok()) return std::move(file).take_status();
  Result<uint64_t> size = (*file)->size();
  if (!size.ok()) return std::move(size).take_status();
  // The size alone bounds the count, checked before anything is allocated.
  constexpr uint64_t kMaxSize = kHeaderBytes + kMaxEntries * kEntryBytes + kCrcBytes;
  if (*size < kHeaderBytes + kCrcBytes || *size > kMaxSize ||
      (*size - kHeaderBytes - kCrcBytes) % kEntryBytes != 0) {
    return damaged(path, "wrong size");
  }
  std::vector<std::byte> bytes(static_cast<std::size_t>(*size));
  SPILLWAY_RETURN_IF_ERROR(read_exact(**file, bytes, 0));
  const std::byte* p = bytes.data();
  const std::size_t crc_at = bytes.size() - kCrcBytes;
  if (crc32c(std::span(bytes).first(crc_at)) != load_be<uint32_t>(p + crc_at)) {
    return damaged(path, "CRC mismatch");
  }
  if (std::memcmp(p, kMagic, sizeof(kMagic)) != 0) return damaged(path, "not a leader-epoch file");
  if (load_be<uint16_t>(p + 8) != kVersion) return damaged(path, "unknown version");
  const uint32_t count = load_be<uint32_t>(p + 10);
  if (count != (crc_at - kHeaderBytes) / kEntryBytes) return damaged(path, "wrong entry count");
  cache->entries_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const std::byte* e = p + kHeaderBytes + std::size_t{i} * kEntryBytes;
    const EpochEntry entry{LeaderEpoch(load_be<int32_t>(e)), Offset(load_be<int64_t>(e + 4))};
    const bool increasing =
        cache->entries_.empty() || (entry.epoch > cache->entries_.back().epoch &&
                                    entry.start_offset > cache->entries_.back().start_offset);
    if (entry.epoch.value() < 0 || entry.start_offset.value() < 0 || !increasing) {
      return damaged(path, "entries out of order");
    }
    cache->entries_.push_back(entry);
  }
  return cache;
}

Result<std::unique_ptr<LeaderEpochCache>> LeaderEpochCache::rebuild(PartitionLog& log) {
  std::unique_ptr<LeaderEpochCache> cache(new LeaderEpochCache(log.file_system(), log.dir()));
  SPILLWAY_RETURN_IF_ERROR(
      log.for_each_batch_header(log.log_start_offset(), [&](const batch::BatchHeader& h) {
        (void)cache->assign_in_memory(LeaderEpoch(h.partition_leader_epoch), Offset(h.base_offset));
      }));
  SPILLWAY_RETURN_IF_ERROR(cache->persist());
  spdlog::info("partition log {}: rebuilt the leader-epoch file from the batches ({} entries)",
               log.dir(), cache->entries_.size());
  return cache;
}

Result<std::unique_ptr<LeaderEpochCache>> LeaderEpochCache::open_or_rebuild(PartitionLog& log) {
  const bool present = log.file_system().exists(file_path(log.dir()));
  Result<std::unique_ptr<LeaderEpochCache>> cache = open(log.file_system(), log.dir());
  if (!cache.ok() && cache.status().code() == ErrorCode::kCorruptMessage) {
    spdlog::warn("partition log {}: {}; rebuilding it", log.dir(), cache.status().message());
    return rebuild(log);
  }
  if (!cache.ok()) return cache;
  if (!present && log.log_end_offset() > log.log_start_offset()) return rebuild(log);
  SPILLWAY_RETURN_IF_ERROR((*cache)->truncate_from_end(log.log_end_offset()));
  SPILLWAY_RETURN_IF_ERROR((*cache)->truncate_from_start(log.log_start_offset()));
  return cache;
}

bool LeaderEpochCache::assign_in_memory(LeaderEpoch epoch, Offset start_offset) {
  if (epoch.value() < 0) return false;
  if (!entries_.empty() && epoch == entries_.back().epoch &&
      start_offset >= entries_.back().start_offset) {
    return false;
  }
  std::size_t removed = 0;
  while (!entries_.empty() &&
         (entries_.back().epoch >= epoch || entries_.back().start_offset >= start_offset)) {
    entries_.pop_back();
    ++removed;
  }
  if (removed > 0) {
    spdlog::debug("partition log {}: epoch {} at offset {} replaced {} later leader-epoch entries",
                  dir_, epoch.value(), start_offset.value(), removed);
  }
  if (entries_.size() >= kMaxEntries) {
    spdlog::warn("partition log {}: more than {} leader epochs; forgetting the oldest", dir_,
                 kMaxEntries);
    entries_.erase(entries_.begin());
  }
  entries_.push_back(EpochEntry{epoch, start_offset});
  return true;
}

Status LeaderEpochCache::assign(LeaderEpoch epoch, Offset start_offset) {
  if (start_offset.value() < 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "leader epoch start offset " + std::to_string(start_offset.value()));
  }
  if (!assign_in_memory(epoch, start_offset)) return Status::Ok();
  return persist();
}

LeaderEpoch LeaderEpochCache::latest_epoch() const {
  return entries_.empty() ? LeaderEpoch(-1) : entries_.back().epoch;
}

std::pair<LeaderEpoch, Offset> LeaderEpochCache::end_offset_for(LeaderEpoch requested,
                                                                Offset log_end) const {
  const std::pair<LeaderEpoch, Offset> undefined{LeaderEpoch(-1), Offset(-1)};
  if (requested.value() < 0 || entries_.empty()) return undefined;
  if (requested == entries_.back().epoch) return {requested, log_end};
  // The first entry with a larger epoch.
  auto higher =
      std::upper_bound(entries_.begin(), entries_.end(), requested,
                       [](LeaderEpoch e, const EpochEntry& entry) { return e < entry.epoch; });
  if (higher == entries_.end()) return undefined;
  if (higher == entries_.begin()) return {requested, higher->start_offset};
  return {std::prev(higher)->epoch, higher->start_offset};
}

Status LeaderEpochCache::truncate_from_end(Offset end) {
  if (end.value() < 0 || entries_.empty() || entries_.back().start_offset < end) {
    return Status::Ok();
  }
  while (!entries_.empty() && entries_.back().start_offset >= end) entries_.pop_back();
  return persist();
}

Status LeaderEpochCache::truncate_from_start(Offset start) {
  // The last entry starting at or before `start` covers it.
  auto after =
      std::upper_bound(entries_.begin(), entries_.end(), start,
                       [](Offset o, const EpochEntry& entry) { return o < entry.start_offset; });
  if (after == entries_.begin()) return Status::Ok();
  auto covering = std::prev(after);
  if (covering == entries_.begin() && covering->start_offset == start) return Status::Ok();
  covering->start_offset = start;
  entries_.erase(entries_.begin(), covering);
  return persist();
}

Status LeaderEpochCache::clear() {
  entries_.clear();
  return persist();
}

Status LeaderEpochCache::persist() {
  std::string out;
  out.reserve(kHeaderBytes + entries_.size() * kEntryBytes + kCrcBytes);
  out.append(kMagic, sizeof(kMagic));
  std::byte buf[8];
  auto put = [&](auto v) {
    store_be(buf, v);
    out.append(reinterpret_cast<const char*>(buf), sizeof(v));
  };
  put(kVersion);
  put(static_cast<uint32_t>(entries_.size()));
  for (const EpochEntry& e : entries_) {
    put(e.epoch.value());
    put(e.start_offset.value());
  }
  put(crc32c(std::as_bytes(std::span(out.data(), out.size()))));
  return write_file_atomically(fs_, file_path(dir_), out);
}

}  // namespace spillway::storage
