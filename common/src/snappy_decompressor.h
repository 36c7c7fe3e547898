// A snappy records block (codec 2) in either of the two forms Kafka clients
// send: the snappy-java ("xerial") framing that the Java client writes, an
// 8-byte magic "\x82SNAPPY\0", two int32 versions, then [int32 length,
// raw snappy chunk]*; or one raw snappy block, as librdkafka produces. The
// magic tells them apart: a raw block cannot start with it (its first
// element would be a copy with nothing to copy from). Private to
// spillway_common.
//
// Raw snappy cannot be streamed through a small window: a copy may reach
// back to the start of its block. So each raw block (the whole records
// block, or one xerial chunk) is decompressed whole into a per-thread
// scratch buffer, and handed out from there in window-sized pieces. Before
// anything is sized, the length the block declares is checked against the
// bound and against the most snappy can expand the bytes it arrived in
// (kMaxSnappyExpansion); a length that would grow the scratch buffer is only
// allocated for once the whole block has been checked to decode to it. The
// scratch buffer grows to at most kRetainedSnappyScratch and is kept; a
// larger block gets a buffer of its own, freed with the decompressor.
#pragma once

#include <memory>

#include "decompressor.h"

namespace spillway::batch {

// A snappy copy of up to 64 bytes costs at least 3 bytes of input and a
// literal costs more than it yields, so no valid block expands more than
// 64/3 times (plus the length prefix).
constexpr uint64_t kMaxSnappyExpansion = 22;
// Largest scratch buffer a thread keeps between blocks (librdkafka's default
// batch is 1,000,000 bytes before compression; Java chunks are 32 KiB).
constexpr std::size_t kRetainedSnappyScratch = 2u << 20;

class SnappyDecompressor final : public Decompressor {
 public:
  // `block` is read in place and must outlive the decompressor.
  SnappyDecompressor(std::span<const std::byte> block, uint64_t bound) noexcept;
  Pull pull(std::span<std::byte> window, std::span<const std::byte>* piece) override;

 private:
  // Decompresses the next raw block into the scratch buffer. Returns kData
  // when there is one (possibly empty), kEnd after the last, kError on fault.
  Pull next_block();
  Pull decompress(std::span<const std::byte> raw);

  std::span<const std::byte> block_;
  bool framed_;
  std::size_t pos_;                 // framed: next unread byte of block_
  bool raw_done_ = false;           // raw: the one block has been decompressed
  const std::byte* out_ = nullptr;  // decompressed bytes of the current raw block
  std::size_t out_pos_ = 0;
  std::size_t out_end_ = 0;
  std::unique_ptr<std::byte[]> oversized_;  // a block beyond the retained scratch
  std::size_t oversized_capacity_ = 0;
};

}  // namespace spillway::batch
