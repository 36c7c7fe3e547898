// Kafka's murmur2, bit for bit (the Java code works on signed ints with
// unsigned shifts; uint32_t arithmetic gives the same bits).
#include "spillway/common/key_partitioner.h"

#include <bit>

namespace spillway {

static_assert(std::endian::native == std::endian::little, "murmur2 loads blocks little-endian");

namespace {

constexpr uint32_t kSeed = 0x9747b28cu;
constexpr uint32_t kM = 0x5bd1e995u;

inline uint32_t mix(uint32_t h, const uint8_t* block) {
  uint32_t k;
  std::memcpy(&k, block, 4);  // little-endian, as Kafka assembles it
  k *= kM;
  k ^= k >> 24;
  k *= kM;
  return (h * kM) ^ k;
}

inline uint32_t finish(uint32_t h, const uint8_t* tail, std::size_t tail_len) {
  switch (tail_len) {
    case 3:
      h ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      h ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      h ^= tail[0];
      h *= kM;
  }
  h ^= h >> 13;
  h *= kM;
  h ^= h >> 15;
  return h;
}

}  // namespace

uint32_t murmur2(std::span<const std::byte> data) noexcept {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  const std::size_t length = data.size();
  uint32_t h = kSeed ^ static_cast<uint32_t>(length);
  const std::size_t blocks = length / 4;
  for (std::size_t i = 0; i < blocks; ++i) h = mix(h, p + 4 * i);
  return finish(h, p + 4 * blocks, length % 4);
}

uint32_t murmur2(std::span<const std::span<const std::byte>> pieces) noexcept {
  std::size_t length = 0;
  for (auto piece : pieces) length += piece.size();
  uint32_t h = kSeed ^ static_cast<uint32_t>(length);
  uint8_t carry[4];  // a block split across pieces
  std::size_t carried = 0;
  for (auto piece : pieces) {
    const auto* p = reinterpret_cast<const uint8_t*>(piece.data());
    std::size_t n = piece.size();
    while (carried > 0 && carried < 4 && n > 0) {
      carry[carried++] = *p++;
      --n;
    }
    if (carried == 4) {
      h = mix(h, carry);
      carried = 0;
    }
    for (; n >= 4; n -= 4, p += 4) h = mix(h, p);
    for (; n > 0; --n) carry[carried++] = *p++;
  }
  return finish(h, carry, carried);
}

}  // namespace spillway
