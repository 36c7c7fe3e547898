// zstd records blocks (see zstd_decompressor.h).
#include "zstd_decompressor.h"

#include "zstd_contexts.h"

namespace spillway::batch {

ZstdDecompressor::ZstdDecompressor(std::span<const std::byte> block, uint64_t bound) noexcept
    : Decompressor(bound), dctx_(zstd::thread_dctx()), in_{block.data(), block.size(), 0} {}

Decompressor::Pull ZstdDecompressor::pull(std::span<std::byte> window,
                                          std::span<const std::byte>* piece) {
  if (failed()) return Pull::kError;
  if (!dctx_) return fail("cannot create a zstd context", ErrorCode::kResourceExhausted);
  if (frame_done_ && in_.pos == in_.size) return Pull::kEnd;
  ZSTD_outBuffer out{window.data(), room(window.size()), 0};
  while (out.pos == 0) {
    const std::size_t in_before = in_.pos;
    const std::size_t r = ZSTD_decompressStream(dctx_, &out, &in_);
    if (ZSTD_isError(r)) return fail("zstd records block is malformed");
    frame_done_ = (r == 0);
    if (out.pos == 0 && (frame_done_ ? in_.pos == in_.size : in_.pos == in_before)) {
      if (!frame_done_) return fail("zstd records block is truncated");
      return Pull::kEnd;
    }
  }
  if (!account(out.pos, "zstd records block decompresses beyond the limit")) return Pull::kError;
  *piece = {window.data(), out.pos};
  return Pull::kData;
}

}  // namespace spillway::batch
