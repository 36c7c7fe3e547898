// KeyPartitioner: Kafka's murmur2 vectors, the partition formula, and
// staging through stack and pool.
#include "spillway/common/key_partitioner.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace spillway {
namespace {

std::span<const std::byte> sv(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

TEST(Murmur2, KafkaVectors) {
  EXPECT_EQ(murmur2(sv("kafka")), 0xd067cf64u);
  EXPECT_EQ(murmur2(sv("")), 0x106e08d9u);
  EXPECT_EQ(murmur2(sv("1234")), 0x9fc97b14u);
  // From Kafka's UtilsTest.testMurmur2 (covers every tail length).
  EXPECT_EQ(static_cast<int32_t>(murmur2(sv("21"))), -973932308);
  EXPECT_EQ(static_cast<int32_t>(murmur2(sv("foobar"))), -790332482);
  EXPECT_EQ(static_cast<int32_t>(murmur2(sv("a-little-bit-long-string"))), -985981536);
  EXPECT_EQ(static_cast<int32_t>(murmur2(sv("a-little-bit-longer-string"))), -1486304829);
  EXPECT_EQ(static_cast<int32_t>(murmur2(sv("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"))),
            -58897971);
  EXPECT_EQ(static_cast<int32_t>(murmur2(sv("abc"))), 479470107);
}

TEST(KeyPartitioner, KafkaFormula) {
  for (std::string_view k : {"kafka", "", "1234", "foobar", "abc"}) {
    const uint32_t h = murmur2(sv(k));
    for (int32_t n : {1, 3, 12, 1000}) {
      EXPECT_EQ(KeyPartitioner::partition(sv(k), n), static_cast<int32_t>((h & 0x7fffffff) % n));
    }
  }
  // "kafka" hashes with the top bit set: the mask, not abs(), decides.
  EXPECT_EQ(KeyPartitioner::partition(sv("kafka"), 7), static_cast<int32_t>(0x5067cf64u % 7));
}

TEST(Murmur2, PiecesEqualTheJoinedBytes) {
  const std::string all = "abcdefghijklmnopq";
  for (std::size_t len = 0; len <= all.size(); ++len) {
    const std::string_view s(all.data(), len);
    for (std::size_t i = 0; i <= len; ++i) {
      for (std::size_t j = i; j <= len; ++j) {
        const std::span<const std::byte> pieces[] = {sv(s.substr(0, i)), sv(s.substr(i, j - i)),
                                                     sv(s.substr(j))};
        ASSERT_EQ(murmur2(pieces), murmur2(sv(s))) << len << " " << i << " " << j;
      }
    }
  }
}

std::string make_key(std::size_t len) {
  std::string key(len, 'k');
  for (std::size_t i = 0; i < len; ++i) key[i] = static_cast<char>('a' + (i * 31) % 26);
  return key;
}

TEST(KeyPartitioner, PrefixedAndStagedEqualInPlaceAcrossTheStackLimit) {
  BufferPool pool;
  KeyPartitioner kp(pool);
  for (std::size_t len :
       {std::size_t{0}, std::size_t{1}, std::size_t{64}, std::size_t{248}, std::size_t{249},
        std::size_t{256}, std::size_t{257}, std::size_t{1024}, std::size_t{100000}}) {
    const std::string topic = "orders/";
    const std::string key = make_key(len);
    const std::string joined = topic + key;
    const int32_t want = KeyPartitioner::partition(sv(joined), 48);
    EXPECT_EQ(KeyPartitioner::partition_prefixed(sv(topic), sv(key), 48), want) << len;
    // Staging with a transform: upper-case the key, compare with the same
    // transform done outside.
    std::string upper = joined;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto staged = kp.partition_staged(
        joined.size(),
        [&](std::span<std::byte> out) {
          for (std::size_t i = 0; i < joined.size(); ++i) {
            out[i] = static_cast<std::byte>(std::toupper(static_cast<unsigned char>(joined[i])));
          }
        },
        48);
    ASSERT_TRUE(staged.ok()) << len;
    EXPECT_EQ(*staged, KeyPartitioner::partition(sv(upper), 48)) << len;
    EXPECT_EQ(pool.outstanding_bytes(), 0u);
  }
}

TEST(KeyPartitioner, StagingUsesTheStackUpTo256BytesAndThePoolAbove) {
  BufferPool::Options o;
  o.max_outstanding_bytes = 0;  // any pooled staging fails
  BufferPool pool(o);
  KeyPartitioner kp(pool);
  auto copy_of = [](const std::string& k) {
    return [&k](std::span<std::byte> out) { std::memcpy(out.data(), k.data(), k.size()); };
  };
  std::string key(256, 'x');
  EXPECT_TRUE(kp.partition_staged(key.size(), copy_of(key), 10).ok());  // stack
  key.push_back('y');
  EXPECT_EQ(kp.partition_staged(key.size(), copy_of(key), 10).status().code(),
            ErrorCode::kResourceExhausted);  // 257 bytes: needs the pool
}

TEST(KeyPartitioner, StagingDoesNotZero) {
  // The staging span reaches fill() as it was: the pool hands back what
  // its last user left.
  BufferPool pool;
  auto b = pool.rent(1000);
  std::memset(b.data(), 0xEE, b.size());
  pool.give_back(b.data());
  KeyPartitioner kp(pool);
  bool saw_old_bytes = false;
  auto r = kp.partition_staged(
      1000,
      [&](std::span<std::byte> s) {
        saw_old_bytes = s[999] == std::byte{0xEE};
        std::memset(s.data(), 1, s.size());
      },
      4);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(saw_old_bytes);
}

}  // namespace
}  // namespace spillway
