// CRC-32C: known vectors on both implementations, and chaining.
#include "spillway/common/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string_view>
#include <vector>

namespace spillway {
namespace {

std::span<const std::byte> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

using Impl = uint32_t (*)(std::span<const std::byte>, uint32_t) noexcept;

std::vector<Impl> implementations() {
  std::vector<Impl> impls{&crc32c_portable, &crc32c};
  if (crc32c_hardware_available()) impls.push_back(&crc32c_hardware);
  if (crc32c_folding_available()) impls.push_back(&crc32c_folding);
  return impls;
}

TEST(Crc32c, KnownVectors) {
  // RFC 3720 B.4 and the common check value.
  std::vector<std::byte> zeros(32, std::byte{0}), ones(32, std::byte{0xFF}), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) {
    inc[i] = static_cast<std::byte>(i);
    dec[i] = static_cast<std::byte>(31 - i);
  }
  for (Impl f : implementations()) {
    EXPECT_EQ(f(as_bytes("123456789"), 0), 0xE3069283u);
    EXPECT_EQ(f(as_bytes(""), 0), 0u);
    EXPECT_EQ(f(as_bytes("a"), 0), 0xC1D04330u);
    EXPECT_EQ(f(zeros, 0), 0x8A9136AAu);
    EXPECT_EQ(f(ones, 0), 0x62A8AB43u);
    EXPECT_EQ(f(inc, 0), 0x46DD794Eu);
    EXPECT_EQ(f(dec, 0), 0x113FDB5Cu);
  }
}

TEST(Crc32c, LongInputsTakeTheInterleavedPathAndAgree) {
  // Lengths around multiples of the 3 x 1 KiB interleave, at odd offsets.
  std::mt19937 rng(11);
  std::vector<std::byte> data(40000);
  for (auto& b : data) b = static_cast<std::byte>(rng());
  for (std::size_t len : {3071, 3072, 3073, 6144, 6151, 9999, 39000}) {
    for (std::size_t off : {0, 3}) {
      std::span<const std::byte> s(data.data() + off, len);
      const uint32_t want = crc32c_portable(s, 0);
      for (Impl f : implementations()) EXPECT_EQ(f(s, 0), want) << len << "+" << off;
      // Chained across a split inside an interleaved block.
      for (Impl f : implementations()) EXPECT_EQ(f(s.subspan(1500), f(s.first(1500), 0)), want);
    }
  }
}

TEST(Crc32c, FoldingAgreesAroundItsBlocksFromAnyRegister) {
  if (!crc32c_folding_available()) GTEST_SKIP() << "no AVX-512 VPCLMULQDQ on this CPU";
  // Lengths on both sides of one, two and many 256-byte blocks, at six
  // alignments of a 64-byte load, continuing from several registers.
  std::mt19937 rng(13);
  std::vector<std::byte> data(300'000);
  for (auto& b : data) b = static_cast<std::byte>(rng());
  for (std::size_t len :
       {255, 256, 257, 511, 512, 513, 767, 768, 1024, 4095, 4096, 65'537, 262'144, 262'161}) {
    for (std::size_t off : {0, 1, 7, 16, 33, 63}) {
      std::span<const std::byte> s(data.data() + off, len);
      for (uint32_t crc : {0u, 1u, 0xFFFFFFFFu, 0x12345678u}) {
        EXPECT_EQ(crc32c_folding(s, crc), crc32c_portable(s, crc)) << len << "+" << off;
      }
    }
  }
  // Every single bit of a two-block input: a wrong fold constant would
  // corrupt the bits of some lane only.
  std::vector<std::byte> block(512, std::byte{0});
  for (std::size_t pos = 0; pos < block.size(); ++pos) {
    for (uint8_t bit = 1; bit != 0; bit <<= 1) {
      block[pos] = static_cast<std::byte>(bit);
      ASSERT_EQ(crc32c_folding(block, 0), crc32c_portable(block, 0)) << pos << "/" << int(bit);
    }
    block[pos] = std::byte{0};
  }
}

TEST(Crc32c, HardwarePathIsUsedWhereAvailable) {
#if defined(__x86_64__)
  EXPECT_EQ(crc32c_hardware_available(), static_cast<bool>(__builtin_cpu_supports("sse4.2")));
#endif
}

TEST(Crc32c, ImplementationsAgreeAndChainAtEverySplit) {
  std::mt19937 rng(7);
  std::vector<std::byte> data(1000);
  for (auto& b : data) b = static_cast<std::byte>(rng());
  const uint32_t whole = crc32c_portable(data, 0);
  for (Impl f : implementations()) {
    EXPECT_EQ(f(data, 0), whole);
    for (std::size_t split : {0, 1, 7, 8, 9, 63, 500, 999, 1000}) {
      std::span<const std::byte> s(data);
      EXPECT_EQ(f(s.subspan(split), f(s.first(split), 0)), whole) << "split " << split;
    }
  }
  // Every length and alignment through the tail loops.
  for (std::size_t off = 0; off < 8; ++off) {
    for (std::size_t len = 0; len < 40; ++len) {
      std::span<const std::byte> s(data.data() + off, len);
      for (Impl f : implementations()) EXPECT_EQ(f(s, 0), crc32c_portable(s, 0));
    }
  }
}

}  // namespace
}  // namespace spillway
