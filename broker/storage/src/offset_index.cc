// OffsetIndex: in-memory sparse index with a flat big-endian file image.
#include "spillway/storage/offset_index.h"

#include <algorithm>
#include <array>
#include <cassert>

namespace spillway::storage {
namespace {

void put_u32(std::byte* p, uint32_t v) {
  p[0] = std::byte(v >> 24);
  p[1] = std::byte(v >> 16);
  p[2] = std::byte(v >> 8);
  p[3] = std::byte(v);
}

uint32_t get_u32(const std::byte* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

}  // namespace

void OffsetIndex::add(int64_t offset, uint64_t position) {
  const int64_t rel = offset - base_offset_;
  assert(rel >= 0 && rel <= int64_t{UINT32_MAX} && position <= UINT32_MAX);
  assert(entries_.empty() || (uint32_t(rel) > entries_.back().relative_offset &&
                              uint32_t(position) > entries_.back().position));
  entries_.push_back(Packed{uint32_t(rel), uint32_t(position)});
}

IndexEntry OffsetIndex::lookup(int64_t offset) const {
  const int64_t rel = offset - base_offset_;
  if (rel < 0 || entries_.empty()) return IndexEntry{base_offset_, 0};
  const uint32_t key = rel > int64_t{UINT32_MAX} ? UINT32_MAX : uint32_t(rel);
  // First entry with relative_offset > key; the one before it is the answer.
  auto it = std::upper_bound(entries_.begin(), entries_.end(), key,
                             [](uint32_t k, const Packed& e) { return k < e.relative_offset; });
  if (it == entries_.begin()) return IndexEntry{base_offset_, 0};
  --it;
  return IndexEntry{base_offset_ + it->relative_offset, it->position};
}

IndexEntry OffsetIndex::lookup_position(uint64_t position) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), position,
                             [](uint64_t p, const Packed& e) { return p < e.position; });
  if (it == entries_.begin()) return IndexEntry{base_offset_, 0};
  --it;
  return IndexEntry{base_offset_ + it->relative_offset, it->position};
}

void OffsetIndex::truncate_to(uint64_t position) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), position,
                             [](const Packed& e, uint64_t p) { return e.position < p; });
  entries_.erase(it, entries_.end());
  if (persisted_ > entries_.size()) {
    persisted_ = entries_.size();
    file_has_stale_tail_ = true;
  }
}

bool OffsetIndex::same_entries(const OffsetIndex& other) const {
  return base_offset_ == other.base_offset_ && entries_.size() == other.entries_.size() &&
         std::equal(entries_.begin(), entries_.end(), other.entries_.begin(),
                    [](const Packed& a, const Packed& b) {
                      return a.relative_offset == b.relative_offset && a.position == b.position;
                    });
}

Status OffsetIndex::load(File& file, uint64_t log_size) {
  entries_.clear();
  persisted_ = 0;
  file_has_stale_tail_ = false;
  Result<uint64_t> size = file.size();
  if (!size.ok()) return std::move(size).take_status();
  if (*size % kEntrySize != 0) {
    return Status(ErrorCode::kCorruptMessage, "index size is not a multiple of 8");
  }
  // Bounded by the log: more entries than log bytes cannot be right, and the
  // check comes before the allocation.
  if (*size / kEntrySize > log_size) {
    return Status(ErrorCode::kCorruptMessage, "index larger than its log");
  }
  entries_.reserve(*size / kEntrySize);
  std::array<std::byte, 64 * kEntrySize> chunk;
  for (uint64_t pos = 0; pos < *size;) {
    const std::size_t n = std::min<uint64_t>(chunk.size(), *size - pos);
    Status st = read_exact(file, std::span(chunk.data(), n), pos);
    if (!st.ok()) {
      entries_.clear();
      return st;
    }
    for (std::size_t i = 0; i < n; i += kEntrySize) {
      const Packed e{get_u32(&chunk[i]), get_u32(&chunk[i + 4])};
      const bool increasing =
          entries_.empty() || (e.relative_offset > entries_.back().relative_offset &&
                               e.position > entries_.back().position);
      if (!increasing || e.position >= log_size) {
        entries_.clear();
        return Status(ErrorCode::kCorruptMessage, "index entries out of order or past the log");
      }
      entries_.push_back(e);
    }
    pos += n;
  }
  persisted_ = entries_.size();
  return Status::Ok();
}

Status OffsetIndex::persist(File& file) {
  if (file_has_stale_tail_) {
    SPILLWAY_RETURN_IF_ERROR(file.truncate(persisted_ * kEntrySize));
    file_has_stale_tail_ = false;
  }
  std::array<std::byte, 64 * kEntrySize> chunk;
  while (persisted_ < entries_.size()) {
    const std::size_t count = std::min<std::size_t>(64, entries_.size() - persisted_);
    for (std::size_t i = 0; i < count; ++i) {
      put_u32(&chunk[i * kEntrySize], entries_[persisted_ + i].relative_offset);
      put_u32(&chunk[i * kEntrySize + 4], entries_[persisted_ + i].position);
    }
    SPILLWAY_RETURN_IF_ERROR(
        write_all(file, std::span(chunk.data(), count * kEntrySize), persisted_ * kEntrySize));
    persisted_ += count;
  }
  return Status::Ok();
}

Status OffsetIndex::rewrite(File& file) {
  SPILLWAY_RETURN_IF_ERROR(file.truncate(0));
  persisted_ = 0;
  file_has_stale_tail_ = false;
  return persist(file);
}

}  // namespace spillway::storage
