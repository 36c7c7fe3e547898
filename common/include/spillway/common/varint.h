// Kafka's variable-length integers (protocol "varint"/"varlong"): zigzag
// signed values in unsigned LEB128, used by every field inside a v2 record.
// Decoders are bounded: they never read past the end they are given and
// reject encodings longer than the type allows (5 bytes for 32-bit, 10 for
// 64-bit) so a hostile batch cannot make them loop or overflow.
#pragma once

#include <cstddef>
#include <cstdint>

namespace spillway::varint {

constexpr std::size_t kMaxVarint32Bytes = 5;
constexpr std::size_t kMaxVarint64Bytes = 10;

constexpr uint32_t zigzag32(int32_t v) noexcept {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
constexpr uint64_t zigzag64(int64_t v) noexcept {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
constexpr int32_t unzigzag32(uint32_t u) noexcept {
  return static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
}
constexpr int64_t unzigzag64(uint64_t u) noexcept {
  return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

// Bytes the unsigned LEB128 encoding of `u` takes (1..10).
constexpr std::size_t uvarint_size(uint64_t u) noexcept {
  std::size_t n = 1;
  while (u >= 0x80) {
    u >>= 7;
    ++n;
  }
  return n;
}
constexpr std::size_t varint_size(int32_t v) noexcept {
  return uvarint_size(zigzag32(v));
}
constexpr std::size_t varlong_size(int64_t v) noexcept {
  return uvarint_size(zigzag64(v));
}

// Writes the unsigned LEB128 of `u` at `p` (uvarint_size(u) writable bytes);
// returns the byte after the last one written.
inline std::byte* put_uvarint(std::byte* p, uint64_t u) noexcept {
  while (u >= 0x80) {
    *p++ = static_cast<std::byte>(static_cast<uint8_t>(u) | 0x80);
    u >>= 7;
  }
  *p++ = static_cast<std::byte>(u);
  return p;
}
inline std::byte* put_varint(std::byte* p, int32_t v) noexcept {
  return put_uvarint(p, zigzag32(v));
}
inline std::byte* put_varlong(std::byte* p, int64_t v) noexcept {
  return put_uvarint(p, zigzag64(v));
}

// Decodes an unsigned LEB128 of at most `max_bytes` bytes from [p, end).
// Returns the byte after it, or nullptr if the input ends first, the
// encoding is longer than max_bytes, or the value does not fit in
// 7*max_bytes bits clipped to `max_bits`.
inline const std::byte* get_uvarint(const std::byte* p, const std::byte* end, std::size_t max_bytes,
                                    unsigned max_bits, uint64_t* out) noexcept {
  // One or two bytes (below 16384: zigzag -8192..8191) is the common case
  // of every record's lengths and deltas: decoded without the loop. Any
  // max_bytes >= 2 and max_bits >= 14 admits them.
  if (end - p >= 2 && max_bytes >= 2 && max_bits >= 14) {
    const auto b0 = static_cast<uint8_t>(p[0]);
    if ((b0 & 0x80) == 0) {
      *out = b0;
      return p + 1;
    }
    const auto b1 = static_cast<uint8_t>(p[1]);
    if ((b1 & 0x80) == 0) {
      *out = (b0 & 0x7Fu) | (static_cast<uint64_t>(b1) << 7);
      return p + 2;
    }
  }
  uint64_t u = 0;
  for (std::size_t i = 0; i < max_bytes; ++i) {
    if (p == end) return nullptr;
    uint64_t b = static_cast<uint8_t>(*p++);
    unsigned shift = static_cast<unsigned>(7 * i);
    // The last permitted byte may only carry the bits that are left.
    if (shift + 7 > max_bits && (b & 0x7F) >> (max_bits - shift) != 0) return nullptr;
    u |= (b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *out = u;
      return p;
    }
  }
  return nullptr;  // overlong
}

// Zigzag varint (int32) / varlong (int64) from [p, end); nullptr on error.
inline const std::byte* get_varint(const std::byte* p, const std::byte* end,
                                   int32_t* out) noexcept {
  uint64_t u;
  p = get_uvarint(p, end, kMaxVarint32Bytes, 32, &u);
  if (p) *out = unzigzag32(static_cast<uint32_t>(u));
  return p;
}
inline const std::byte* get_varlong(const std::byte* p, const std::byte* end,
                                    int64_t* out) noexcept {
  uint64_t u;
  p = get_uvarint(p, end, kMaxVarint64Bytes, 64, &u);
  if (p) *out = unzigzag64(u);
  return p;
}

}  // namespace spillway::varint
