// The primitives under every body codec of both protocols (codec.h drives
// them from a message's description): a bounds-checked reader over a
// received body and a writer that appends to a pooled WriteBuffer. Big-endian
// fixed-width integers, and the unsigned LEB128 and zigzag varints of
// Kafka's flexible versions. Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::wire {

// A cursor over a body. Every read checks the bytes left first; after a
// failed read the reader is exhausted and ok() is false, so a decoder may
// read a whole structure and test ok() once. Values never outlive the body.
class WireReader {
 public:
  explicit WireReader(std::span<const std::byte> body) noexcept : rest_(body) {}

  int8_t i8() noexcept;
  int16_t i16() noexcept;
  int32_t i32() noexcept;
  int64_t i64() noexcept;
  // The next `n` raw bytes (a view into the body).
  std::span<const std::byte> take(size_t n) noexcept;
  // Unsigned LEB128 of at most 5 bytes (Kafka's UNSIGNED_VARINT, the
  // lengths and counts of flexible versions).
  uint32_t uvarint() noexcept;
  // Zigzag varint / varlong (Kafka's VARINT, VARLONG).
  int32_t varint() noexcept;
  int64_t varlong() noexcept;

  bool ok() const noexcept { return ok_; }
  size_t remaining() const noexcept { return rest_.size(); }
  const std::byte* position() const noexcept { return rest_.data(); }
  void fail() noexcept {
    ok_ = false;
    rest_ = {};
  }
  // Names the field whose read failed, for the error message; the first
  // (innermost) name given is kept.
  void blame(std::string_view field) noexcept {
    if (blamed_.empty()) blamed_ = field;
  }
  std::string_view blamed() const noexcept { return blamed_; }

 private:
  std::span<const std::byte> rest_;
  std::string_view blamed_;
  bool ok_ = true;
};

// Appends to a WriteBuffer (which spills into its pool when the scratch is
// full). The first failure (a refused rent, a value the encoding cannot
// hold) is kept and later writes do nothing; check status() once at the
// end. On failure the buffer holds a partial body: discard it.
class WireWriter {
 public:
  explicit WireWriter(WriteBuffer& out) noexcept : out_(out) {}

  void i8(int8_t v) noexcept { keep(out_.write_be<uint8_t>(static_cast<uint8_t>(v))); }
  void i16(int16_t v) noexcept { keep(out_.write_be<int16_t>(v)); }
  void i32(int32_t v) noexcept { keep(out_.write_be<int32_t>(v)); }
  void i64(int64_t v) noexcept { keep(out_.write_be<int64_t>(v)); }
  void raw(std::span<const std::byte> b) noexcept {
    if (ok()) keep(out_.write(b));
  }
  void uvarint(uint32_t v) noexcept { keep(out_.write_uvarint(v)); }
  void varint(int32_t v) noexcept { keep(out_.write_varint(v)); }
  void varlong(int64_t v) noexcept { keep(out_.write_varlong(v)); }
  // Records a failure (e.g. a value the encoding cannot represent).
  void fail(Status s) noexcept { keep(std::move(s)); }

  // Bytes written to the buffer so far (by everyone, not only this writer).
  uint64_t position() const noexcept { return out_.bytes_written(); }
  // Patches an i32 written earlier at `offset` (e.g. a count not known up
  // front). Precondition: offset + 4 <= position().
  void patch_i32(uint64_t offset, int32_t v) noexcept;

  const Status& status() const noexcept { return status_; }
  bool ok() const noexcept { return status_.ok(); }
  WriteBuffer& buffer() noexcept { return out_; }

 private:
  void keep(Status s) noexcept {
    if (!s.ok() && status_.ok()) status_ = std::move(s);
  }

  WriteBuffer& out_;
  Status status_;
};

}  // namespace spillway::wire
