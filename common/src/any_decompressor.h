// Room for one decompressor of any codec, chosen at run time, without the
// heap. Private to spillway_common.
#pragma once

#include <variant>

#include "decompressor.h"
#include "gzip_decompressor.h"
#include "lz4_decompressor.h"
#include "snappy_decompressor.h"
#include "zstd_decompressor.h"

namespace spillway::batch {

class AnyDecompressor {
 public:
  AnyDecompressor() = default;
  AnyDecompressor(const AnyDecompressor&) = delete;
  AnyDecompressor& operator=(const AnyDecompressor&) = delete;

  // Builds the decompressor for a block compressed with `c` that may expand
  // to at most `bound` bytes, replacing any earlier one; nullptr when `c` is
  // not gzip, snappy, lz4 or zstd. `block` is read in place and must outlive
  // this object's use of it.
  Decompressor* start(Compression c, std::span<const std::byte> block, uint64_t bound) noexcept {
    switch (c) {
      case Compression::kGzip:
        return &v_.emplace<GzipDecompressor>(block, bound);
      case Compression::kSnappy:
        return &v_.emplace<SnappyDecompressor>(block, bound);
      case Compression::kLz4:
        return &v_.emplace<Lz4Decompressor>(block, bound);
      case Compression::kZstd:
        return &v_.emplace<ZstdDecompressor>(block, bound);
      default:
        v_.emplace<std::monostate>();
        return nullptr;
    }
  }

 private:
  std::variant<std::monostate, GzipDecompressor, SnappyDecompressor, Lz4Decompressor,
               ZstdDecompressor>
      v_;
};

}  // namespace spillway::batch
