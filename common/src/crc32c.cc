// CRC-32C implementations: carry-less multiplication folding (AVX-512
// VPCLMULQDQ), the SSE4.2 `crc32` instruction and slicing-by-8 tables. All
// work on the reflected polynomial 0x82F63B78 with the usual pre- and
// post-inversion, so results match Kafka's Crc32C and RFC 3720.
#include "spillway/common/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
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
namespace {

// The register after `n` bytes at `p`, from register `reg` (no inversions).
__attribute__((target("sse4.2"))) uint32_t crc32_instruction_raw(uint32_t reg, const std::byte* p,
                                                                 std::size_t n) noexcept {
  uint64_t c = reg;
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
  return c32;
}

// Folding with carry-less multiplication. A 128-bit register loaded from 16
// message bytes holds a polynomial S of degree < 128 (byte 0's bit 0 the
// highest term, as the reflected CRC reads the message). Moving S forward
// over D message bits, S * x^D, splits into its two 64-bit halves:
//   S * x^D = H * x^(D+64) + L * x^D     (H: the low qword, L: the high one)
// and each x^k may be replaced by x^k mod P (degree < 32), so the product
// stays below 128 bits. PCLMULQDQ of two reflected 64-bit values, read as a
// reflected 128-bit value, is their product times x; the constants are
// therefore x^(D+63) mod P (low qword, for H) and x^(D-1) mod P (high
// qword, for L). Only congruence mod P matters until the end, where the
// folded 16 bytes run through the crc32 instruction like any message.
constexpr uint64_t kPolyNormal = 0x11EDC6F41ull;  // P with its x^32 term

constexpr uint32_t x_pow_mod(std::size_t n) {
  uint64_t r = 1;
  for (std::size_t i = 0; i < n; ++i) {
    r <<= 1;
    if (r & (1ull << 32)) r ^= kPolyNormal;
  }
  return static_cast<uint32_t>(r);
}

// x^n mod P as a reflected 64-bit PCLMULQDQ operand (x^j at bit 63 - j).
constexpr uint64_t fold_constant(std::size_t n) {
  const uint32_t r = x_pow_mod(n);
  uint64_t v = 0;
  for (int j = 0; j < 32; ++j) {
    if (r & (1u << j)) v |= 1ull << (63 - j);
  }
  return v;
}

// {low, high} qwords for a move over `bits` message bits.
struct FoldConstants {
  uint64_t low, high;
};
constexpr FoldConstants fold_by(std::size_t bits) {
  return {fold_constant(bits + 63), fold_constant(bits - 1)};
}
constexpr FoldConstants kFold128 = fold_by(128), kFold256 = fold_by(256), kFold384 = fold_by(384),
                        kFold512 = fold_by(512), kFold1024 = fold_by(1024),
                        kFold1536 = fold_by(1536), kFold2048 = fold_by(2048);

// Four 64-byte accumulators, 256 bytes per step.
constexpr std::size_t kFoldBlock = 256;

#define SPILLWAY_VPCLMUL_TARGET __attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2")))

SPILLWAY_VPCLMUL_TARGET inline __m512i fold_constants512(FoldConstants k) {
  return _mm512_set_epi64(static_cast<long long>(k.high), static_cast<long long>(k.low),
                          static_cast<long long>(k.high), static_cast<long long>(k.low),
                          static_cast<long long>(k.high), static_cast<long long>(k.low),
                          static_cast<long long>(k.high), static_cast<long long>(k.low));
}

// a moved forward by k's distance, xor b.
SPILLWAY_VPCLMUL_TARGET inline __m512i fold512(__m512i a, __m512i k, __m512i b) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(a, k, 0x00),
                                   _mm512_clmulepi64_epi128(a, k, 0x11), b, 0x96);
}

SPILLWAY_VPCLMUL_TARGET inline __m128i fold128(__m128i a, FoldConstants c, __m128i b) {
  const __m128i k = _mm_set_epi64x(static_cast<long long>(c.high), static_cast<long long>(c.low));
  return _mm_ternarylogic_epi64(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11),
                                b, 0x96);
}

// The register after n >= kFoldBlock bytes, n a multiple of kFoldBlock.
SPILLWAY_VPCLMUL_TARGET uint32_t fold_raw(uint32_t reg, const std::byte* p,
                                          std::size_t n) noexcept {
  // Continuing from `reg` is the same as starting from 0 with reg xored
  // into the first four bytes.
  __m512i a0 = _mm512_xor_si512(_mm512_loadu_si512(p),
                                _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(reg))));
  __m512i a1 = _mm512_loadu_si512(p + 64);
  __m512i a2 = _mm512_loadu_si512(p + 128);
  __m512i a3 = _mm512_loadu_si512(p + 192);
  const __m512i k2048 = fold_constants512(kFold2048);
  for (std::size_t i = kFoldBlock; i < n; i += kFoldBlock) {
    a0 = fold512(a0, k2048, _mm512_loadu_si512(p + i));
    a1 = fold512(a1, k2048, _mm512_loadu_si512(p + i + 64));
    a2 = fold512(a2, k2048, _mm512_loadu_si512(p + i + 128));
    a3 = fold512(a3, k2048, _mm512_loadu_si512(p + i + 192));
  }
  // Everything moved to the last 64 bytes, then to their last 16. (The
  // masked extracts: GCC 12's unmasked ones warn of an uninitialized
  // operand inside its own header.)
  a3 = fold512(a2, fold_constants512(kFold512), a3);
  a3 = fold512(a1, fold_constants512(kFold1024), a3);
  a3 = fold512(a0, fold_constants512(kFold1536), a3);
  __m128i s = _mm512_maskz_extracti32x4_epi32(0xF, a3, 3);
  s = fold128(_mm512_maskz_extracti32x4_epi32(0xF, a3, 2), kFold128, s);
  s = fold128(_mm512_maskz_extracti32x4_epi32(0xF, a3, 1), kFold256, s);
  s = fold128(_mm512_maskz_extracti32x4_epi32(0xF, a3, 0), kFold384, s);
  uint32_t r = static_cast<uint32_t>(_mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(s))));
  return static_cast<uint32_t>(_mm_crc32_u64(r, static_cast<uint64_t>(_mm_extract_epi64(s, 1))));
}

#undef SPILLWAY_VPCLMUL_TARGET

}  // namespace

uint32_t crc32c_hardware(std::span<const std::byte> data, uint32_t crc) noexcept {
  return ~crc32_instruction_raw(~crc, data.data(), data.size());
}

bool crc32c_hardware_available() noexcept {
  static const bool available = __builtin_cpu_supports("sse4.2");
  return available;
}

uint32_t crc32c_folding(std::span<const std::byte> data, uint32_t crc) noexcept {
  uint32_t reg = ~crc;
  // Below one block the crc32 instruction alone is as fast.
  const std::size_t folded = data.size() / kFoldBlock * kFoldBlock;
  if (folded != 0) reg = fold_raw(reg, data.data(), folded);
  return ~crc32_instruction_raw(reg, data.data() + folded, data.size() - folded);
}

bool crc32c_folding_available() noexcept {
  static const bool available =
      __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul") &&
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("vpclmulqdq");
  return available;
}
#else
uint32_t crc32c_hardware(std::span<const std::byte> data, uint32_t crc) noexcept {
  return crc32c_portable(data, crc);
}
bool crc32c_hardware_available() noexcept {
  return false;
}
uint32_t crc32c_folding(std::span<const std::byte> data, uint32_t crc) noexcept {
  return crc32c_portable(data, crc);
}
bool crc32c_folding_available() noexcept {
  return false;
}
#endif

uint32_t crc32c(std::span<const std::byte> data, uint32_t crc) noexcept {
  // Chosen once; the static's guard is a predictable branch afterwards.
  static const auto impl = crc32c_folding_available()    ? &crc32c_folding
                           : crc32c_hardware_available() ? &crc32c_hardware
                                                         : &crc32c_portable;
  return impl(data, crc);
}

}  // namespace spillway
