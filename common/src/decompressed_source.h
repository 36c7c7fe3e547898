// The record grammar's byte source (record_grammar.h) over a compressed
// records block: decompressed on the fly into a fixed window, never more
// than the decompressor's bound in total. Values are skipped, not kept:
// validation only needs their lengths, so a record of any size passes
// through the window. Private to spillway_common.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include "decompressor.h"
#include "spillway/common/varint.h"

namespace spillway::batch {

class DecompressedSource {
 public:
  DecompressedSource(Decompressor& d, std::span<std::byte> window) : d_(d), window_(window) {}

  uint64_t consumed() const { return consumed_; }
  // Why decompression stopped (static string), or nullptr.
  const char* error() const { return d_.error(); }
  ErrorCode error_code() const { return d_.error_code(); }

  bool byte(uint64_t limit, uint8_t* out) {
    if (consumed_ >= limit) return false;
    if (pos_ == piece_.size() && !refill()) return false;
    *out = static_cast<uint8_t>(piece_[pos_++]);
    ++consumed_;
    return true;
  }
  bool varint(uint64_t limit, int32_t* out) {
    uint64_t u;
    if (!uvarint(limit, varint::kMaxVarint32Bytes, 32, &u)) return false;
    *out = varint::unzigzag32(static_cast<uint32_t>(u));
    return true;
  }
  bool varlong(uint64_t limit, int64_t* out) {
    uint64_t u;
    if (!uvarint(limit, varint::kMaxVarint64Bytes, 64, &u)) return false;
    *out = varint::unzigzag64(u);
    return true;
  }
  bool take(std::size_t n, std::span<const std::byte>* view) {
    *view = {};
    while (n > 0) {
      if (pos_ == piece_.size() && !refill()) return false;
      const std::size_t step = std::min(n, piece_.size() - pos_);
      pos_ += step;
      consumed_ += step;
      n -= step;
    }
    return true;
  }
  // True iff the block is complete: every frame ended, all input used, and
  // no decompressed byte is left over.
  bool at_end() {
    if (pos_ != piece_.size()) return false;
    return d_.pull(window_, &piece_) == Decompressor::Pull::kEnd;
  }

 private:
  bool uvarint(uint64_t limit, std::size_t max_bytes, unsigned max_bits, uint64_t* out) {
    std::array<std::byte, varint::kMaxVarint64Bytes> buf;
    std::size_t n = 0;
    uint8_t b;
    do {
      if (n == max_bytes || !byte(limit, &b)) {
        // Let the decoder classify: truncated or overlong, both are errors.
        return false;
      }
      buf[n++] = static_cast<std::byte>(b);
    } while (b & 0x80);
    return varint::get_uvarint(buf.data(), buf.data() + n, max_bytes, max_bits, out) != nullptr;
  }

  bool refill() {
    pos_ = 0;
    piece_ = {};
    std::span<const std::byte> next;
    if (d_.pull(window_, &next) != Decompressor::Pull::kData) return false;
    piece_ = next;
    return true;
  }

  Decompressor& d_;
  std::span<std::byte> window_;
  std::span<const std::byte> piece_;  // the current decompressed piece
  std::size_t pos_ = 0;               // next unread byte of piece_
  uint64_t consumed_ = 0;
};

}  // namespace spillway::batch
