// An lz4 records block (codec 3: the LZ4 frame format, as Java's
// KafkaLZ4BlockOutputStream and librdkafka write it for magic 2, with a
// correct header checksum) decompressed in the caller's window through this
// thread's LZ4F context. Several frames back to back are accepted; each
// must be complete. Private to spillway_common.
//
// Memory: LZ4F keeps internal buffers sized by the largest block size a
// frame has declared on this thread (64 KiB for Java and librdkafka, at
// most 4 MiB), allocated once and reused.
#pragma once

#include <lz4frame.h>

#include "decompressor.h"

namespace spillway::batch {

class Lz4Decompressor final : public Decompressor {
 public:
  // `block` is read in place and must outlive the decompressor.
  Lz4Decompressor(std::span<const std::byte> block, uint64_t bound) noexcept;
  Pull pull(std::span<std::byte> window, std::span<const std::byte>* piece) override;

 private:
  LZ4F_dctx* dctx_;  // this thread's context; nullptr if lz4 could not allocate it
  const std::byte* in_;
  std::size_t in_size_;
  std::size_t in_pos_ = 0;
  bool frame_done_ = false;  // the last call ended a frame (none started yet: false)
};

}  // namespace spillway::batch
