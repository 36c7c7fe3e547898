// A zstd records block (codec 4) decompressed in the caller's window through
// this thread's zstd context (zstd_contexts.h). A block may hold several
// frames back to back; each must be complete. Private to spillway_common.
#pragma once

#include <zstd.h>

#include "decompressor.h"

namespace spillway::batch {

class ZstdDecompressor final : public Decompressor {
 public:
  // `block` is read in place and must outlive the decompressor.
  ZstdDecompressor(std::span<const std::byte> block, uint64_t bound) noexcept;
  Pull pull(std::span<std::byte> window, std::span<const std::byte>* piece) override;

 private:
  ZSTD_DCtx* dctx_;
  ZSTD_inBuffer in_;
  bool frame_done_ = false;  // the last call ended a frame (none started yet: false)
};

}  // namespace spillway::batch
