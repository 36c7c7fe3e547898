// Round trips, exact sizes and malformed input for the partition-
// reassignment codecs (messages/reassignments.h, docs/protocol.md
// "AlterPartitionReassignments").
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "spillway/common/messages/reassignments.h"

namespace spillway::messages {
namespace {

template <typename Fn>
std::vector<std::byte> encode(Fn&& fn) {
  std::array<std::byte, 32> scratch;  // small, so bodies spill
  WriteBuffer buf(scratch);
  Status st = fn(buf);
  EXPECT_TRUE(st.ok()) << st.to_string();
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

template <typename T>
std::vector<T> collect(const Array<T>& a) {
  std::vector<T> out;
  for (const T& v : a) out.push_back(v);
  return out;
}

void put32(std::vector<std::byte>& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(std::byte((v >> s) & 0xff));
}

TEST(ReassignmentCodec, AlterRequestRoundTrip) {
  const std::vector<int32_t> target = {2, 3};
  const std::array<ReassignPartitionRequest, 2> parts = {
      ReassignPartitionRequest{.partition = 0, .replicas = target},
      ReassignPartitionRequest{.partition = 4, .replicas = {}}};  // a cancel
  const std::array<ReassignTopicRequest, 1> topics = {
      ReassignTopicRequest{.name = "orders", .partitions = parts}};
  const AlterPartitionReassignmentsRequest request{.throttle_bytes_per_sec = 65536,
                                                   .topics = topics};
  const auto body = encode(
      [&](WriteBuffer& b) { return encode_alter_partition_reassignments_request(request, b); });
  // throttle, topic count, name, partition count, (4 + 4 + 2*4) + (4 + 4).
  EXPECT_EQ(body.size(), 8u + 4 + (2 + 6) + 4 + 16 + 8);
  auto got = decode_alter_partition_reassignments_request(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->throttle_bytes_per_sec, 65536);
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].name, "orders");
  auto p = collect(t[0].partitions);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].partition, 0);
  EXPECT_EQ(collect(p[0].replicas), target);
  EXPECT_EQ(p[1].partition, 4);
  EXPECT_TRUE(p[1].replicas.empty());
}

TEST(ReassignmentCodec, AlterResponseRoundTrip) {
  const std::array<ReassignPartitionResult, 2> results = {
      ReassignPartitionResult{.partition = 0},
      ReassignPartitionResult{.partition = 1,
                              .error_code = ErrorCode::kInvalidReplicaAssignment,
                              .error_message = "broker 9 is not a live broker"}};
  const std::array<ReassignTopicResult, 1> topics = {
      ReassignTopicResult{.name = "orders", .results = results}};
  const auto body = encode(
      [&](WriteBuffer& b) { return encode_alter_partition_reassignments_response({topics}, b); });
  auto got = decode_alter_partition_reassignments_response(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  auto r = collect(t[0].results);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].error_code, ErrorCode::kOk);
  EXPECT_EQ(r[1].error_code, ErrorCode::kInvalidReplicaAssignment);
  EXPECT_EQ(r[1].error_message.text, "broker 9 is not a live broker");
}

TEST(ReassignmentCodec, ListRoundTrip) {
  const std::vector<int32_t> wanted = {0, 2};
  const std::array<ListReassignmentsTopicRequest, 2> filter = {
      ListReassignmentsTopicRequest{.name = "a", .partitions = wanted},
      ListReassignmentsTopicRequest{.name = "b"}};
  const auto req = encode(
      [&](WriteBuffer& b) { return encode_list_partition_reassignments_request({filter}, b); });
  auto got_req = decode_list_partition_reassignments_request(req);
  ASSERT_TRUE(got_req.ok()) << got_req.status().to_string();
  auto f = collect(got_req->topics);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(collect(f[0].partitions), wanted);
  EXPECT_TRUE(f[1].partitions.empty());
  const auto all =
      encode([&](WriteBuffer& b) { return encode_list_partition_reassignments_request({}, b); });
  EXPECT_EQ(all.size(), 4u);  // no topics: every one

  const std::vector<int32_t> replicas = {1, 2, 3}, target = {2, 3}, adding = {3}, removing = {1},
                             isr = {1, 2};
  const std::array<OngoingReassignmentBody, 1> moves = {
      OngoingReassignmentBody{.partition = 7,
                              .replicas = replicas,
                              .target = target,
                              .adding = adding,
                              .removing = removing,
                              .isr = isr,
                              .leader = 1,
                              .throttle_bytes_per_sec = 1 << 20}};
  const std::array<OngoingReassignmentsTopic, 1> topics = {
      OngoingReassignmentsTopic{.name = "a", .partitions = moves}};
  const auto body = encode(
      [&](WriteBuffer& b) { return encode_list_partition_reassignments_response({topics}, b); });
  // topic count, name, partition count, partition, 5 arrays, leader, throttle.
  EXPECT_EQ(body.size(), 4u + 3 + 4 + 4 + (4 * 5 + 4 * (3 + 2 + 1 + 1 + 2)) + 4 + 8);
  auto got = decode_list_partition_reassignments_response(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  auto m = collect(t[0].partitions);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].partition, 7);
  EXPECT_EQ(collect(m[0].replicas), replicas);
  EXPECT_EQ(collect(m[0].target), target);
  EXPECT_EQ(collect(m[0].adding), adding);
  EXPECT_EQ(collect(m[0].removing), removing);
  EXPECT_EQ(collect(m[0].isr), isr);
  EXPECT_EQ(m[0].leader, 1);
  EXPECT_EQ(m[0].throttle_bytes_per_sec, 1 << 20);
}

// Every prefix of a valid body is malformed, and so is a byte too many.
TEST(ReassignmentCodec, TruncatedAndTrailingBodiesAreRejected) {
  const std::vector<int32_t> target = {2, 3};
  const std::array<ReassignPartitionRequest, 1> parts = {
      ReassignPartitionRequest{.partition = 0, .replicas = target}};
  const std::array<ReassignTopicRequest, 1> topics = {
      ReassignTopicRequest{.name = "t", .partitions = parts}};
  auto body = encode([&](WriteBuffer& b) {
    return encode_alter_partition_reassignments_request({.topics = topics}, b);
  });
  for (size_t n = 0; n < body.size(); ++n) {
    auto got =
        decode_alter_partition_reassignments_request(std::span<const std::byte>(body).first(n));
    ASSERT_FALSE(got.ok()) << n;
    EXPECT_EQ(got.status().code(), ErrorCode::kCorruptMessage);
  }
  body.push_back(std::byte{0});
  EXPECT_FALSE(decode_alter_partition_reassignments_request(body).ok());
}

// A count larger than the bytes left is refused before anything is sized,
// and so is a negative one.
TEST(ReassignmentCodec, HugeAndNegativeCountsAreRejected) {
  std::vector<std::byte> topics(8, std::byte{0});  // throttle
  put32(topics, 0x7fffffff);                       // 2^31-1 topics, nothing after
  auto got = decode_alter_partition_reassignments_request(topics);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("topics"), std::string::npos) << got.status().to_string();

  std::vector<std::byte> replicas(8, std::byte{0});
  put32(replicas, 1);  // one topic
  replicas.push_back(std::byte{0});
  replicas.push_back(std::byte{1});
  replicas.push_back(std::byte{'t'});
  put32(replicas, 1);           // one partition
  put32(replicas, 0);           // partition 0
  put32(replicas, 0x10000000);  // 2^28 replicas
  EXPECT_FALSE(decode_alter_partition_reassignments_request(replicas).ok());
  replicas.resize(replicas.size() - 4);
  put32(replicas, 0xfffffffe);  // -2 replicas
  EXPECT_FALSE(decode_alter_partition_reassignments_request(replicas).ok());

  std::vector<std::byte> list;
  put32(list, 0x7fffffff);
  EXPECT_FALSE(decode_list_partition_reassignments_response(list).ok());
  EXPECT_FALSE(decode_list_partition_reassignments_request(list).ok());
}

}  // namespace
}  // namespace spillway::messages
