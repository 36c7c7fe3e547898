// A gzip records block (codec 1: RFC 1952, what Java's GZIPOutputStream and
// librdkafka write) inflated in the caller's window through this thread's
// zlib stream. Several gzip members back to back are accepted, as Java's
// GZIPInputStream does; each must be complete, with its CRC and length.
// Private to spillway_common.
#pragma once

#include <zlib.h>

#include "decompressor.h"

namespace spillway::batch {

class GzipDecompressor final : public Decompressor {
 public:
  // `block` is read in place and must outlive the decompressor.
  GzipDecompressor(std::span<const std::byte> block, uint64_t bound) noexcept;
  Pull pull(std::span<std::byte> window, std::span<const std::byte>* piece) override;

 private:
  z_stream* zs_;        // this thread's stream; nullptr if zlib could not set it up
  bool ended_ = false;  // the last member ended with no input left
};

}  // namespace spillway::batch
