// snappy records blocks, raw or snappy-java framed (see
// snappy_decompressor.h).
#include "snappy_decompressor.h"

#include <snappy-c.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#include "spillway/common/endian.h"

namespace spillway::batch {
namespace {

constexpr char kXerialMagic[8] = {'\x82', 'S', 'N', 'A', 'P', 'P', 'Y', '\0'};
// Magic, version, compatible version.
constexpr std::size_t kXerialHeaderSize = 16;
constexpr std::size_t kMinScratch = 64u << 10;

struct Scratch {
  std::unique_ptr<std::byte[]> data;
  std::size_t capacity = 0;
};

Scratch& thread_scratch() {
  thread_local Scratch s;
  return s;
}

const char* chars(const std::byte* p) {
  return reinterpret_cast<const char*>(p);
}

}  // namespace

SnappyDecompressor::SnappyDecompressor(std::span<const std::byte> block, uint64_t bound) noexcept
    : Decompressor(bound),
      block_(block),
      framed_(block.size() >= sizeof(kXerialMagic) &&
              std::memcmp(block.data(), kXerialMagic, sizeof(kXerialMagic)) == 0),
      pos_(0) {}

Decompressor::Pull SnappyDecompressor::pull(std::span<std::byte> window,
                                            std::span<const std::byte>* piece) {
  if (failed()) return Pull::kError;
  while (out_pos_ == out_end_) {
    const Pull p = next_block();
    if (p != Pull::kData) return p;
  }
  const std::size_t n = std::min(window.size(), out_end_ - out_pos_);
  *piece = {out_ + out_pos_, n};
  out_pos_ += n;
  return Pull::kData;
}

Decompressor::Pull SnappyDecompressor::next_block() {
  if (!framed_) {
    // The whole records block is one raw snappy block.
    if (raw_done_) return Pull::kEnd;
    raw_done_ = true;
    return decompress(block_);
  }
  if (pos_ == 0) {
    if (block_.size() < kXerialHeaderSize) return fail("snappy-java header is truncated");
    pos_ = kXerialHeaderSize;  // versions: snappy-java writes 1 and 1; readers ignore them
  }
  if (pos_ == block_.size()) return Pull::kEnd;
  if (block_.size() - pos_ < 4) return fail("snappy-java chunk length is truncated");
  const int32_t length = load_be<int32_t>(block_.data() + pos_);
  pos_ += 4;
  if (length <= 0) return fail("snappy-java chunk length is not positive");
  if (static_cast<std::size_t>(length) > block_.size() - pos_) {
    return fail("snappy-java chunk is truncated");
  }
  std::span<const std::byte> raw = block_.subspan(pos_, static_cast<std::size_t>(length));
  pos_ += static_cast<std::size_t>(length);
  return decompress(raw);
}

Decompressor::Pull SnappyDecompressor::decompress(std::span<const std::byte> raw) {
  std::size_t length = 0;
  if (snappy_uncompressed_length(chars(raw.data()), raw.size(), &length) != SNAPPY_OK) {
    return fail("snappy records block is malformed");
  }
  if (length > remaining()) return fail("snappy records block decompresses beyond the limit");
  if (length > raw.size() * kMaxSnappyExpansion) {
    return fail("snappy records block declares more bytes than it can hold");
  }
  Scratch& scratch = thread_scratch();
  std::byte* out = scratch.data.get();
  if (length > scratch.capacity) {
    // About to allocate: first make sure the block really decodes to
    // `length` bytes (snappy checks this without writing any output).
    if (snappy_validate_compressed_buffer(chars(raw.data()), raw.size()) != SNAPPY_OK) {
      return fail("snappy records block is malformed");
    }
    if (length <= kRetainedSnappyScratch) {
      const std::size_t size =
          std::min(std::bit_ceil(std::max(length, kMinScratch)), kRetainedSnappyScratch);
      scratch.data.reset(new (std::nothrow) std::byte[size]);
      scratch.capacity = scratch.data ? size : 0;
      out = scratch.data.get();
    } else if (length > oversized_capacity_) {
      oversized_.reset(new (std::nothrow) std::byte[length]);
      oversized_capacity_ = oversized_ ? length : 0;
      out = oversized_.get();
    } else {
      out = oversized_.get();
    }
    if (!out) return fail("cannot allocate for snappy", ErrorCode::kResourceExhausted);
  }
  std::size_t out_length = length;
  if (length > 0 && snappy_uncompress(chars(raw.data()), raw.size(), reinterpret_cast<char*>(out),
                                      &out_length) != SNAPPY_OK) {
    return fail("snappy records block is malformed");
  }
  if (length == 0 &&
      snappy_validate_compressed_buffer(chars(raw.data()), raw.size()) != SNAPPY_OK) {
    return fail("snappy records block is malformed");
  }
  if (out_length != length) return fail("snappy records block is malformed");
  if (!account(length, "snappy records block decompresses beyond the limit")) return Pull::kError;
  out_ = out;
  out_pos_ = 0;
  out_end_ = length;
  return Pull::kData;
}

}  // namespace spillway::batch
