// Streaming check of stored batches: headers from a read window, the CRC
// continued across refills of that window.
#include "batch_check.h"

#include <algorithm>

#include "spillway/common/crc32c.h"
#include "spillway/common/record_batch.h"

namespace spillway::storage {

Result<std::optional<BadBatch>> check_stored_batches(File& file, uint64_t position, uint64_t length,
                                                     int64_t first_offset,
                                                     std::span<std::byte> buffer) {
  const uint64_t end = position + length;
  uint64_t window_start = 0;
  uint64_t window_size = 0;
  // Makes [at, at + need) addressable in buffer (need <= buffer.size()).
  auto fill = [&](uint64_t at, uint64_t need) -> Status {
    if (at >= window_start && at + need <= window_start + window_size) return Status::Ok();
    const uint64_t n = std::min<uint64_t>(buffer.size(), end - at);
    SPILLWAY_RETURN_IF_ERROR(read_exact(file, buffer.first(static_cast<std::size_t>(n)), at));
    window_start = at;
    window_size = n;
    return Status::Ok();
  };
  int64_t expected = first_offset;
  for (uint64_t pos = position; pos < end;) {
    BadBatch bad;
    bad.position = pos;
    bad.base_offset = expected;
    if (end - pos < batch::kHeaderSize) {
      bad.reason = "batch header runs past the end of the range";
      return std::optional<BadBatch>(bad);
    }
    SPILLWAY_RETURN_IF_ERROR(fill(pos, batch::kHeaderSize));
    Result<batch::BatchHeader> h =
        batch::parse_header(buffer.subspan(pos - window_start, batch::kHeaderSize));
    if (!h.ok()) {
      bad.reason = "batch header does not parse";
      return std::optional<BadBatch>(bad);
    }
    bad.size = h->total_size();
    if (h->last_offset_delta >= 0) bad.end_offset = expected + h->last_offset_delta + 1;
    if (h->base_offset != expected || h->last_offset_delta < 0) {
      bad.reason = "offsets not dense";
      return std::optional<BadBatch>(bad);
    }
    if (h->total_size() > end - pos) {
      bad.reason = "batch runs past the end of the range";
      return std::optional<BadBatch>(bad);
    }
    const uint64_t batch_end = pos + h->total_size();
    uint32_t crc = 0;
    for (uint64_t at = pos + batch::kAttributesPos; at < batch_end;) {
      SPILLWAY_RETURN_IF_ERROR(fill(at, 1));
      const uint64_t take = std::min(window_start + window_size, batch_end) - at;
      crc = crc32c(buffer.subspan(at - window_start, static_cast<std::size_t>(take)), crc);
      at += take;
    }
    if (crc != h->crc) {
      bad.reason = "CRC mismatch";
      return std::optional<BadBatch>(bad);
    }
    expected = h->last_offset() + 1;
    pos = batch_end;
  }
  return std::optional<BadBatch>();
}

}  // namespace spillway::storage
