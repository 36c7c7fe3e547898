// CRC-32C implementations: SSE4.2 `crc32` instruction and slicing-by-8 tables.
// Both work on the reflected polynomial 0x82F63B78 with the usual pre- and
// post-inversion, so results match Kafka's Crc32C and RFC 3720.
#include "spillway/common/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace spillway {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;

// kTables[k][b]: CRC of byte b followed by k zero bytes; slicing-by-8 folds
// eight input bytes per step with eight independent lookups.
constexpr std::array<std::array<uint32_t, 256>, 8> make_tables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c >> 1) ^ ((c & 1u) ? kPoly : 0u);
    t[0][b] = c;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
  }
  return t;
}
constexpr auto kTables = make_tables();

// The hardware path runs three independent CRC streams over adjacent
// kStride-byte blocks (the crc32 instruction has a latency of three cycles
// but issues every cycle) and joins them with the identity
//   raw(A ++ B, r) = zeros(raw(A, r), |B|) ^ raw(B, 0)
// where zeros(r, L) is the register after L zero bytes: linear in r, so a
// byte-sliced table gives it in four lookups.
constexpr std::size_t kStride = 1024;

constexpr uint32_t shift_by_zeros(uint32_t reg, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) reg = (reg >> 8) ^ kTables[0][reg & 0xFF];
  return reg;
}

constexpr std::array<std::array<uint32_t, 256>, 4> make_stride_tables() {
  std::array<uint32_t, 32> basis{};
  for (int bit = 0; bit < 32; ++bit) basis[bit] = shift_by_zeros(1u << bit, kStride);
  std::array<std::array<uint32_t, 256>, 4> t{};
  for (int lane = 0; lane < 4; ++lane) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t v = 0;
      for (int bit = 0; bit < 8; ++bit) {
        if (b & (1u << bit)) v ^= basis[lane * 8 + bit];
      }
      t[lane][b] = v;
    }
  }
  return t;
}
constexpr auto kStrideTables = make_stride_tables();

inline uint32_t shift_stride(uint32_t reg) {
  return kStrideTables[0][reg & 0xFF] ^ kStrideTables[1][(reg >> 8) & 0xFF] ^
         kStrideTables[2][(reg >> 16) & 0xFF] ^ kStrideTables[3][reg >> 24];
}

uint64_t load_le64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // x86-64 and aarch64 are little-endian; the tables assume it.
}

}  // namespace

uint32_t crc32c_portable(std::span<const std::byte> data, uint32_t crc) noexcept {
  uint32_t c = ~crc;
  const std::byte* p = data.data();
  std::size_t n = data.size();
  while (n >= 8) {
    uint64_t v = load_le64(p) ^ c;
    c = kTables[7][v & 0xFF] ^ kTables[6][(v >> 8) & 0xFF] ^ kTables[5][(v >> 16) & 0xFF] ^
        kTables[4][(v >> 24) & 0xFF] ^ kTables[3][(v >> 32) & 0xFF] ^ kTables[2][(v >> 40) & 0xFF] ^
        kTables[1][(v >> 48) & 0xFF] ^ kTables[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ kTables[0][(c ^ static_cast<uint32_t>(*p++)) & 0xFF];
  return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_hardware(std::span<const std::byte> data,
                                                           uint32_t crc) noexcept {
  uint64_t c = ~crc;
  const std::byte* p = data.data();
  std::size_t n = data.size();
  while (n >= 3 * kStride) {
    uint64_t c1 = 0, c2 = 0;
    for (std::size_t i = 0; i < kStride; i += 8) {
      c = _mm_crc32_u64(c, load_le64(p + i));
      c1 = _mm_crc32_u64(c1, load_le64(p + kStride + i));
      c2 = _mm_crc32_u64(c2, load_le64(p + 2 * kStride + i));
    }
    c = shift_stride(static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c1);
    c = shift_stride(static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c2);
    p += 3 * kStride;
    n -= 3 * kStride;
  }
  while (n >= 8) {
    c = _mm_crc32_u64(c, load_le64(p));
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--) c32 = _mm_crc32_u8(c32, static_cast<uint8_t>(*p++));
  return ~c32;
}

bool crc32c_hardware_available() noexcept {
  static const bool available = __builtin_cpu_supports("sse4.2");
  return available;
}
#else
uint32_t crc32c_hardware(std::span<const std::byte> data, uint32_t crc) noexcept {
  return crc32c_portable(data, crc);
}
bool crc32c_hardware_available() noexcept {
  return false;
}
#endif

uint32_t crc32c(std::span<const std::byte> data, uint32_t crc) noexcept {
  // Chosen once; the static's guard is a predictable branch afterwards.
  static const auto impl = crc32c_hardware_available() ? &crc32c_hardware : &crc32c_portable;
  return impl(data, crc);
}

}  // namespace spillway
