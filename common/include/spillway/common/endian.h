// Big-endian loads and stores on byte spans: the byte order of every integer
// in Kafka's RecordBatch header and protocol frames.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace spillway {

namespace endian_detail {
inline uint8_t bswap(uint8_t v) noexcept {
  return v;
}
inline uint16_t bswap(uint16_t v) noexcept {
  return __builtin_bswap16(v);
}
inline uint32_t bswap(uint32_t v) noexcept {
  return __builtin_bswap32(v);
}
inline uint64_t bswap(uint64_t v) noexcept {
  return __builtin_bswap64(v);
}
}  // namespace endian_detail

// Reads a big-endian integer of type T from `p` (sizeof(T) readable bytes).
template <typename T>
inline T load_be(const std::byte* p) noexcept {
  static_assert(std::is_integral_v<T>);
  std::make_unsigned_t<T> u;
  std::memcpy(&u, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::little) {
    u = endian_detail::bswap(u);
  }
  return static_cast<T>(u);
}

// Writes `v` big-endian to `p` (sizeof(T) writable bytes).
template <typename T>
inline void store_be(std::byte* p, T v) noexcept {
  static_assert(std::is_integral_v<T>);
  auto u = static_cast<std::make_unsigned_t<T>>(v);
  if constexpr (std::endian::native == std::endian::little) {
    u = endian_detail::bswap(u);
  }
  std::memcpy(p, &u, sizeof(T));
}

}  // namespace spillway
