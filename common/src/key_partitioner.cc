// Kafka's murmur2, bit for bit (the Java code works on signed ints with
// unsigned shifts; uint32_t arithmetic gives the same bits).
#include "spillway/common/key_partitioner.h"

#include <bit>

namespace spillway {

static_assert(std::endian::native == std::endian::little, "murmur2 loads blocks little-endian");

uint32_t murmur2(std::span<const std::byte> data) noexcept {
  constexpr uint32_t kSeed = 0x9747b28cu;
  constexpr uint32_t m = 0x5bd1e995u;
  constexpr int r = 24;
  const std::size_t length = data.size();
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  uint32_t h = kSeed ^ static_cast<uint32_t>(length);
  const std::size_t blocks = length / 4;
  for (std::size_t i = 0; i < blocks; ++i) {
    uint32_t k;
    std::memcpy(&k, p + 4 * i, 4);  // little-endian, as Kafka assembles it
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  const uint8_t* tail = p + 4 * blocks;
  switch (length % 4) {
    case 3:
      h ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      h ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      h ^= tail[0];
      h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return h;
}

}  // namespace spillway
