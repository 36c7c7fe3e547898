// Streaming check of stored batches: headers from a read window, the CRC
// continued across refills of that window.
#include "spillway/storage/batch_check.h"

#include <algorithm>
#include <vector>

#include "spillway/common/crc32c.h"
#include "spillway/common/record_batch.h"

namespace spillway::storage {

Result<std::optional<BadBatch>> BatchChecker::step(uint64_t budget, std::span<std::byte> buffer) {
  // Makes [at, at + need) addressable in buffer (need <= buffer.size()).
  auto fill = [&](uint64_t at, uint64_t need) -> Status {
    if (at >= window_start_ && at + need <= window_start_ + window_size_) return Status::Ok();
    const uint64_t n = std::min<uint64_t>(buffer.size(), end_ - at);
    SPILLWAY_RETURN_IF_ERROR(read_exact(file_, buffer.first(static_cast<std::size_t>(n)), at));
    window_start_ = at;
    window_size_ = n;
    return Status::Ok();
  };
  window_size_ = 0;  // the buffer may have served someone else meanwhile
  const uint64_t stop = budget >= end_ - position_ ? end_ : position_ + budget;
  while (position_ < end_ && position_ < stop) {
    BadBatch bad;
    bad.position = position_;
    bad.base_offset = expected_;
    if (end_ - position_ < batch::kHeaderSize) {
      bad.reason = "batch header runs past the end of the range";
      return std::optional<BadBatch>(bad);
    }
    SPILLWAY_RETURN_IF_ERROR(fill(position_, batch::kHeaderSize));
    Result<batch::BatchHeader> h =
        batch::parse_header(buffer.subspan(position_ - window_start_, batch::kHeaderSize));
    if (!h.ok()) {
      bad.reason = "batch header does not parse";
      return std::optional<BadBatch>(bad);
    }
    bad.size = h->total_size();
    if (h->last_offset_delta >= 0) bad.end_offset = expected_ + h->last_offset_delta + 1;
    if (h->base_offset != expected_ || h->last_offset_delta < 0) {
      bad.reason = "offsets not dense";
      return std::optional<BadBatch>(bad);
    }
    if (h->total_size() > end_ - position_) {
      bad.reason = "batch runs past the end of the range";
      return std::optional<BadBatch>(bad);
    }
    const uint64_t batch_end = position_ + h->total_size();
    uint32_t crc = 0;
    for (uint64_t at = position_ + batch::kAttributesPos; at < batch_end;) {
      SPILLWAY_RETURN_IF_ERROR(fill(at, 1));
      const uint64_t take = std::min(window_start_ + window_size_, batch_end) - at;
      crc = crc32c(buffer.subspan(at - window_start_, static_cast<std::size_t>(take)), crc);
      at += take;
    }
    if (crc != h->crc) {
      bad.reason = "CRC mismatch";
      return std::optional<BadBatch>(bad);
    }
    expected_ = h->last_offset() + 1;
    position_ = batch_end;
  }
  return std::optional<BadBatch>();
}

SealedSegmentCheck::SealedSegmentCheck(std::shared_ptr<File> file, int64_t base_offset,
                                       uint64_t size, uint64_t truncations)
    : file_(std::move(file)),
      base_offset_(base_offset),
      size_(size),
      truncations_(truncations),
      checker_(*file_, 0, size, base_offset) {}

std::span<std::byte> thread_check_buffer() {
  thread_local std::vector<std::byte> buffer(256 * 1024);
  return buffer;
}

Result<bool> SealedSegmentCheck::step(uint64_t budget) {
  if (damage_) return true;
  Result<std::optional<BadBatch>> bad = checker_.step(budget, thread_check_buffer());
  if (!bad.ok()) return std::move(bad).take_status();
  if (bad->has_value()) {
    damage_ = **bad;
    return true;
  }
  return checker_.done();
}

}  // namespace spillway::storage
