// HeaderWindow: batch headers through a 4 KiB read-ahead buffer.
#include "header_window.h"

#include <algorithm>

namespace spillway::storage {

Result<StoredBatch> HeaderWindow::at(uint64_t position, uint32_t max_batch_bytes) {
  constexpr std::size_t kHeader = batch::kHeaderSize;
  if (position + kHeader > end_) {
    return Status(ErrorCode::kCorruptMessage, "batch header runs past the end of the segment");
  }
  if (position < start_ || position + kHeader > start_ + filled_) {
    const std::size_t want = std::min<uint64_t>(buf_.size(), end_ - position);
    SPILLWAY_RETURN_IF_ERROR(read_exact(file_, std::span(buf_.data(), want), position));
    start_ = position;
    filled_ = want;
  }
  std::span<const std::byte> header(buf_.data() + (position - start_), kHeader);
  Result<batch::BatchHeader> h = batch::parse_header(header);
  if (!h.ok()) return std::move(h).take_status();
  if (h->batch_length < int32_t{kHeader - 12}) {
    return Status(ErrorCode::kCorruptMessage, "batch length below the header size");
  }
  const uint64_t size = h->total_size();
  if (size > max_batch_bytes || position + size > end_ || h->last_offset_delta < 0) {
    return Status(ErrorCode::kCorruptMessage, "batch size or offset delta out of range");
  }
  return StoredBatch{.base_offset = h->base_offset,
                     .last_offset = h->base_offset + h->last_offset_delta,
                     .size = size,
                     .header = *h};
}

}  // namespace spillway::storage
