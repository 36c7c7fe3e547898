// Zigzag varints as the record grammar reads them: the one- and two-byte
// fast path of get_uvarint() must agree with the general loop at every
// boundary, including an input that ends inside a value.
#include "spillway/common/varint.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace spillway {
namespace {

TEST(Varint, RoundTripsAtEveryLengthBoundaryWithTheInputEndingRightAfter) {
  const std::vector<int64_t> values = {0,
                                       1,
                                       -1,
                                       63,
                                       -64,
                                       64,
                                       -65,
                                       8191,
                                       -8192,
                                       8192,
                                       -8193,
                                       1 << 20,
                                       -(1 << 20),
                                       std::numeric_limits<int32_t>::max(),
                                       std::numeric_limits<int32_t>::min()};
  for (int64_t v : values) {
    std::array<std::byte, 16> buf{};
    const std::byte* end = varint::put_varint(buf.data(), static_cast<int32_t>(v));
    ASSERT_EQ(static_cast<size_t>(end - buf.data()), varint::varint_size(static_cast<int32_t>(v)));
    int32_t got = 0;
    EXPECT_EQ(varint::get_varint(buf.data(), end, &got), end) << v;
    EXPECT_EQ(got, v);
    // Cut one byte short: no value, whatever the encoding's length.
    EXPECT_EQ(varint::get_varint(buf.data(), end - 1, &got), nullptr) << v;
    // With bytes after it (a record's next field): the same value and end.
    EXPECT_EQ(varint::get_varint(buf.data(), buf.data() + buf.size(), &got), end) << v;
    EXPECT_EQ(got, v);
    int64_t got64 = 0;
    end = varint::put_varlong(buf.data(), v);
    EXPECT_EQ(varint::get_varlong(buf.data(), end, &got64), end) << v;
    EXPECT_EQ(got64, v);
  }
}

TEST(Varint, TwoByteEncodingsDecodeLikeTheLoop) {
  // Every two-byte value, read with and without room for the fast path.
  for (uint64_t u = 128; u < (1u << 14); ++u) {
    std::array<std::byte, 4> buf{};
    const std::byte* end = varint::put_uvarint(buf.data(), u);
    ASSERT_EQ(end - buf.data(), 2);
    uint64_t tight = 0, roomy = 0;
    ASSERT_EQ(varint::get_uvarint(buf.data(), end, 5, 32, &tight), end);
    ASSERT_EQ(varint::get_uvarint(buf.data(), buf.data() + buf.size(), 5, 32, &roomy), end);
    ASSERT_EQ(tight, u);
    ASSERT_EQ(roomy, u);
  }
}

TEST(Varint, RejectsOverlongAndOversizedEncodings) {
  // Six continuation bytes: longer than an int32's five.
  const std::array<std::byte, 6> overlong = {std::byte{0x80}, std::byte{0x80}, std::byte{0x80},
                                             std::byte{0x80}, std::byte{0x80}, std::byte{0x00}};
  int32_t v = 0;
  EXPECT_EQ(varint::get_varint(overlong.data(), overlong.data() + overlong.size(), &v), nullptr);
  // Five bytes whose last carries bits beyond 32.
  const std::array<std::byte, 5> too_big = {std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF},
                                            std::byte{0xFF}, std::byte{0x7F}};
  EXPECT_EQ(varint::get_varint(too_big.data(), too_big.data() + too_big.size(), &v), nullptr);
  // A one-byte limit refuses a two-byte value even with room for it.
  const std::array<std::byte, 2> two = {std::byte{0x81}, std::byte{0x01}};
  uint64_t u = 0;
  EXPECT_EQ(varint::get_uvarint(two.data(), two.data() + two.size(), 1, 64, &u), nullptr);
  // Empty input.
  EXPECT_EQ(varint::get_varint(two.data(), two.data(), &v), nullptr);
}

}  // namespace
}  // namespace spillway
