// Kafka's consumer protocol bytes (kafka/consumer_protocol.h): golden
// encodings built by hand from the protocol documentation, round trips in
// every version, newer versions read as the newest known, malformed input.
#include "spillway/common/kafka/consumer_protocol.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace spillway::kafka {
namespace {

std::vector<std::byte> bytes_of(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

template <typename T>
std::vector<T> collect(const wire::Array<T>& a) {
  std::vector<T> out;
  for (const T& v : a) out.push_back(v);
  return out;
}

TEST(ConsumerProtocol, SubscriptionV0Golden) {
  const std::array<std::string_view, 1> topics = {"ab"};
  ConsumerProtocolSubscription s;
  s.topics = topics;
  Result<std::vector<std::byte>> got = consumer_subscription_bytes(s, 0);
  ASSERT_TRUE(got.ok());
  // version 0 | 1 topic | "ab" | user_data null
  EXPECT_EQ(*got, bytes_of({0, 0, 0, 0, 0, 1, 0, 2, 'a', 'b', 0xff, 0xff, 0xff, 0xff}));
}

TEST(ConsumerProtocol, SubscriptionV1GoldenWithOwnedPartitions) {
  const std::array<std::string_view, 1> topics = {"t"};
  const std::array<int32_t, 2> parts = {2, 5};
  const std::array<ConsumerTopicPartitions, 1> owned = {ConsumerTopicPartitions{"t", parts}};
  const std::vector<std::byte> user = bytes_of({7});
  ConsumerProtocolSubscription s;
  s.topics = topics;
  s.user_data = std::span<const std::byte>(user);
  s.owned_partitions = owned;
  s.generation_id = 9;  // v2+: left out of v1
  Result<std::vector<std::byte>> got = consumer_subscription_bytes(s, 1);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, bytes_of({0, 1,                   // version
                            0, 0, 0, 1, 0, 1, 't',  // topics
                            0, 0, 0, 1, 7,          // user_data
                            0, 0, 0, 1, 0, 1, 't',  // owned: 1 topic "t"
                            0, 0, 0, 2, 0, 0, 0,   2, 0, 0, 0, 5}));
}

TEST(ConsumerProtocol, AssignmentV1Golden) {
  const std::array<int32_t, 1> parts = {3};
  const std::array<ConsumerTopicPartitions, 1> assigned = {ConsumerTopicPartitions{"x", parts}};
  ConsumerProtocolAssignment a;
  a.assigned_partitions = assigned;
  Result<std::vector<std::byte>> got = consumer_assignment_bytes(a, 1);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, bytes_of({0,    1,    0,    0,   0, 1, 0, 1, 'x', 0, 0, 0, 1, 0, 0, 0, 3,  //
                            0xff, 0xff, 0xff, 0xff}));
}

TEST(ConsumerProtocol, SubscriptionRoundTripsInEveryVersion) {
  const std::array<std::string_view, 2> topics = {"orders", "payments"};
  const std::array<int32_t, 3> parts = {0, 1, 4};
  const std::array<ConsumerTopicPartitions, 1> owned = {ConsumerTopicPartitions{"orders", parts}};
  ConsumerProtocolSubscription s;
  s.topics = topics;
  s.owned_partitions = owned;
  s.generation_id = 12;
  s.rack_id = "rack-a";
  for (int16_t v = 0; v <= kConsumerSubscriptionVersion; ++v) {
    SCOPED_TRACE(v);
    Result<std::vector<std::byte>> bytes = consumer_subscription_bytes(s, v);
    ASSERT_TRUE(bytes.ok());
    auto got = decode_consumer_subscription(*bytes);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_EQ(got->version, v);
    EXPECT_EQ(collect(got->message.topics), (std::vector<std::string_view>{"orders", "payments"}));
    EXPECT_FALSE(got->message.user_data.has_value());
    const auto owned_got = collect(got->message.owned_partitions);
    if (v >= 1) {
      ASSERT_EQ(owned_got.size(), 1u);
      EXPECT_EQ(owned_got[0].topic, "orders");
      EXPECT_EQ(collect(owned_got[0].partitions), (std::vector<int32_t>{0, 1, 4}));
    } else {
      EXPECT_TRUE(owned_got.empty());
    }
    EXPECT_EQ(got->message.generation_id, v >= 2 ? 12 : -1);
    EXPECT_EQ(got->message.rack_id,
              v >= 3 ? std::optional<std::string_view>("rack-a") : std::nullopt);
  }
}

TEST(ConsumerProtocol, AssignmentRoundTripsWithUserData) {
  const std::array<int32_t, 2> p1 = {0, 2};
  const std::array<int32_t, 1> p2 = {7};
  const std::array<ConsumerTopicPartitions, 2> assigned = {ConsumerTopicPartitions{"a", p1},
                                                           ConsumerTopicPartitions{"b", p2}};
  const std::vector<std::byte> user = bytes_of({1, 2, 3});
  ConsumerProtocolAssignment a;
  a.assigned_partitions = assigned;
  a.user_data = std::span<const std::byte>(user);
  for (int16_t v = 0; v <= kConsumerAssignmentVersion; ++v) {
    Result<std::vector<std::byte>> bytes = consumer_assignment_bytes(a, v);
    ASSERT_TRUE(bytes.ok());
    auto got = decode_consumer_assignment(*bytes);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    const auto topics = collect(got->message.assigned_partitions);
    ASSERT_EQ(topics.size(), 2u);
    EXPECT_EQ(topics[1].topic, "b");
    EXPECT_EQ(collect(topics[1].partitions), std::vector<int32_t>{7});
    ASSERT_TRUE(got->message.user_data.has_value());
    EXPECT_EQ(
        std::vector<std::byte>(got->message.user_data->begin(), got->message.user_data->end()),
        user);
  }
}

TEST(ConsumerProtocol, NewerVersionReadsKnownFieldsAndIgnoresTheRest) {
  std::vector<std::byte> bytes = bytes_of({0, 9, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff});
  bytes.push_back(std::byte{0x42});  // a field from the future
  auto got = decode_consumer_assignment(bytes);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->version, 9);
  EXPECT_TRUE(got->message.assigned_partitions.empty());
}

TEST(ConsumerProtocol, MalformedInputIsRejected) {
  EXPECT_FALSE(decode_consumer_subscription({}).ok());
  EXPECT_FALSE(decode_consumer_subscription(bytes_of({0xff, 0xff})).ok());  // negative version
  // A topic count far beyond the bytes there.
  EXPECT_EQ(decode_consumer_subscription(bytes_of({0, 0, 0x7f, 0, 0, 0})).status().code(),
            ErrorCode::kCorruptMessage);
  // A known version with bytes left over.
  EXPECT_FALSE(
      decode_consumer_assignment(bytes_of({0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1})).ok());
  // Truncated partition list.
  EXPECT_FALSE(
      decode_consumer_assignment(bytes_of({0, 0, 0, 0, 0, 1, 0, 1, 'x', 0, 0, 0, 2, 0})).ok());
}

}  // namespace
}  // namespace spillway::kafka
