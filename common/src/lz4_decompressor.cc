// lz4 records blocks (see lz4_decompressor.h).
#include "lz4_decompressor.h"

namespace spillway::batch {
namespace {

struct ThreadContext {
  LZ4F_dctx* dctx = nullptr;
  ~ThreadContext() { LZ4F_freeDecompressionContext(dctx); }
};

// This thread's context, reset for a new block; nullptr if it could not be
// created.
LZ4F_dctx* thread_dctx() noexcept {
  thread_local ThreadContext t;
  if (!t.dctx) {
    if (LZ4F_isError(LZ4F_createDecompressionContext(&t.dctx, LZ4F_VERSION))) {
      t.dctx = nullptr;
      return nullptr;
    }
  } else {
    // A previous block may have stopped mid-frame (an error, the bound).
    LZ4F_resetDecompressionContext(t.dctx);
  }
  return t.dctx;
}

}  // namespace

Lz4Decompressor::Lz4Decompressor(std::span<const std::byte> block, uint64_t bound) noexcept
    : Decompressor(bound), dctx_(thread_dctx()), in_(block.data()), in_size_(block.size()) {}

Decompressor::Pull Lz4Decompressor::pull(std::span<std::byte> window,
                                         std::span<const std::byte>* piece) {
  if (failed()) return Pull::kError;
  if (!dctx_) return fail("cannot create an lz4 context", ErrorCode::kResourceExhausted);
  if (frame_done_ && in_pos_ == in_size_) return Pull::kEnd;
  const std::size_t given = room(window.size());
  for (;;) {
    std::size_t out_size = given;
    std::size_t in_size = in_size_ - in_pos_;
    const std::size_t r =
        LZ4F_decompress(dctx_, window.data(), &out_size, in_ + in_pos_, &in_size, nullptr);
    if (LZ4F_isError(r)) return fail("lz4 records block is malformed");
    in_pos_ += in_size;
    frame_done_ = (r == 0);
    if (out_size > 0) {
      if (!account(out_size, "lz4 records block decompresses beyond the limit")) {
        return Pull::kError;
      }
      *piece = {window.data(), out_size};
      return Pull::kData;
    }
    if (in_pos_ == in_size_) {
      if (frame_done_) return Pull::kEnd;
      return fail("lz4 records block is truncated");
    }
    // Neither input taken nor output made: LZ4F promises one or the other.
    if (in_size == 0) return fail("lz4 records block is malformed");
  }
}

}  // namespace spillway::batch
