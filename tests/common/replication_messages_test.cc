// Round trips, exact sizes and malformed input for the replication codecs
// (messages/replication.h, docs/protocol.md "Replication").
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "spillway/common/messages/replication.h"

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

TEST(ReplicationCodec, ReplicaFetchRequestRoundTrip) {
  const std::array<ReplicaFetchPartitionRequest, 2> parts = {
      ReplicaFetchPartitionRequest{
          .partition = 0, .fetch_offset = 42, .current_leader_epoch = 3, .max_bytes = 1 << 20},
      ReplicaFetchPartitionRequest{
          .partition = 5, .fetch_offset = 0, .current_leader_epoch = 7, .max_bytes = 10}};
  const std::array<ReplicaFetchTopicRequest, 1> topics = {
      ReplicaFetchTopicRequest{.name = "orders", .partitions = parts}};
  const ReplicaFetchRequest request{.replica_id = 2,
                                    .broker_epoch = 1234567890123,
                                    .max_wait_ms = 500,
                                    .min_bytes = 1,
                                    .max_bytes = 8 << 20,
                                    .topics = topics};
  const auto body = encode([&](WriteBuffer& b) { return encode_replica_fetch_request(request, b); });
  // 4+8+4+4+4, topics count, name, partition count, 2 x (4+8+4+4).
  EXPECT_EQ(body.size(), 24u + 4 + (2 + 6) + 4 + 2 * 20);
  auto got = decode_replica_fetch_request(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->replica_id, 2);
  EXPECT_EQ(got->broker_epoch, 1234567890123);
  EXPECT_EQ(got->max_wait_ms, 500);
  EXPECT_EQ(got->max_bytes, 8 << 20);
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].name, "orders");
  auto p = collect(t[0].partitions);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].fetch_offset, 42);
  EXPECT_EQ(p[0].current_leader_epoch, 3);
  EXPECT_EQ(p[1].partition, 5);
  EXPECT_EQ(p[1].current_leader_epoch, 7);
  EXPECT_EQ(p[1].max_bytes, 10);
}

TEST(ReplicationCodec, ReplicaFetchResponseRoundTrip) {
  const std::array<std::byte, 5> batch = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                                          std::byte{5}};
  Records records;
  records.bytes = batch;
  const std::array<ReplicaFetchPartitionResult, 2> results = {
      ReplicaFetchPartitionResult{.partition = 0,
                                  .high_watermark = 10,
                                  .log_start_offset = 0,
                                  .leader_epoch = 4,
                                  .records = records},
      ReplicaFetchPartitionResult{.partition = 1,
                                  .error_code = ErrorCode::kFencedLeaderEpoch,
                                  .error_message = "epoch 3 is older than 4"}};
  const std::array<ReplicaFetchTopicResult, 1> topics = {
      ReplicaFetchTopicResult{.name = "t", .results = results}};
  const auto body =
      encode([&](WriteBuffer& b) { return encode_replica_fetch_response({topics}, b); });
  auto got = decode_replica_fetch_response(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  auto r = collect(t[0].results);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].high_watermark, 10);
  EXPECT_EQ(r[0].leader_epoch, 4);
  ASSERT_EQ(r[0].records.bytes.size(), 5u);
  EXPECT_EQ(std::memcmp(r[0].records.bytes.data(), batch.data(), 5), 0);
  EXPECT_EQ(r[1].error_code, ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(r[1].error_message.text, "epoch 3 is older than 4");
  EXPECT_TRUE(r[1].records.bytes.empty());
}

TEST(ReplicationCodec, LeaderEpochEndRoundTrip) {
  const std::array<LeaderEpochEndPartitionRequest, 1> parts = {
      LeaderEpochEndPartitionRequest{.partition = 3, .current_leader_epoch = 9, .leader_epoch = 6}};
  const std::array<LeaderEpochEndTopicRequest, 1> topics = {
      LeaderEpochEndTopicRequest{.name = "x", .partitions = parts}};
  const auto body = encode(
      [&](WriteBuffer& b) { return encode_leader_epoch_end_request({7, topics}, b); });
  EXPECT_EQ(body.size(), 4u + 4 + 3 + 4 + 12);
  auto got = decode_leader_epoch_end_request(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->replica_id, 7);
  auto p = collect(collect(got->topics)[0].partitions);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].partition, 3);
  EXPECT_EQ(p[0].current_leader_epoch, 9);
  EXPECT_EQ(p[0].leader_epoch, 6);

  const std::array<LeaderEpochEndPartitionResult, 1> results = {
      LeaderEpochEndPartitionResult{.partition = 3, .leader_epoch = 5, .end_offset = 120}};
  const std::array<LeaderEpochEndTopicResult, 1> rtopics = {
      LeaderEpochEndTopicResult{.name = "x", .results = results}};
  const auto rbody =
      encode([&](WriteBuffer& b) { return encode_leader_epoch_end_response({rtopics}, b); });
  auto answer = decode_leader_epoch_end_response(rbody);
  ASSERT_TRUE(answer.ok()) << answer.status().to_string();
  auto r = collect(collect(answer->topics)[0].results);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error_code, ErrorCode::kOk);
  EXPECT_EQ(r[0].leader_epoch, 5);
  EXPECT_EQ(r[0].end_offset, 120);
}

TEST(ReplicationCodec, DescribeClusterRoundTrip) {
  const auto empty = encode([&](WriteBuffer& b) { return encode_describe_cluster_request({}, b); });
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(decode_describe_cluster_request(empty).ok());

  const std::array<ClusterBrokerBody, 2> brokers = {
      ClusterBrokerBody{.id = 1,
                        .native_address = "a:9092",
                        .kafka_address = "a:9093",
                        .rack = "r1",
                        .epoch = 100},
      ClusterBrokerBody{.id = 2, .native_address = "b:9092", .epoch = 200}};
  const std::vector<int32_t> replicas = {1, 2, 3};
  const std::vector<int32_t> isr = {1, 2};
  const std::array<ClusterPartitionBody, 2> partitions = {
      ClusterPartitionBody{
          .partition = 0, .leader = 1, .leader_epoch = 4, .replicas = replicas, .isr = isr},
      ClusterPartitionBody{.partition = 1, .leader = -1, .replicas = replicas, .offline = true}};
  const std::array<ClusterTopicBody, 1> topics = {
      ClusterTopicBody{.name = "orders", .partitions = partitions}};
  const DescribeClusterResponse response{
      .controller_id = 2, .controller_epoch = 77, .brokers = brokers, .topics = topics};
  const auto body =
      encode([&](WriteBuffer& b) { return encode_describe_cluster_response(response, b); });
  auto got = decode_describe_cluster_response(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->controller_id, 2);
  EXPECT_EQ(got->controller_epoch, 77);
  auto b = collect(got->brokers);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].kafka_address, "a:9093");
  EXPECT_EQ(b[0].rack, "r1");
  EXPECT_EQ(b[1].kafka_address, "");
  EXPECT_EQ(b[1].epoch, 200);
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  auto p = collect(t[0].partitions);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(collect(p[0].replicas), replicas);
  EXPECT_EQ(collect(p[0].isr), isr);
  EXPECT_FALSE(p[0].offline);
  EXPECT_EQ(p[1].leader, -1);
  EXPECT_TRUE(p[1].offline);
  EXPECT_TRUE(collect(p[1].isr).empty());
}

// Every prefix of a valid body is malformed, and so is a byte too many.
TEST(ReplicationCodec, TruncatedAndTrailingBodiesAreRejected) {
  const std::array<ReplicaFetchPartitionRequest, 1> parts = {
      ReplicaFetchPartitionRequest{.partition = 1, .fetch_offset = 2}};
  const std::array<ReplicaFetchTopicRequest, 1> topics = {
      ReplicaFetchTopicRequest{.name = "orders", .partitions = parts}};
  auto body = encode([&](WriteBuffer& b) {
    return encode_replica_fetch_request({.replica_id = 1, .topics = topics}, b);
  });
  for (size_t n = 0; n < body.size(); ++n) {
    auto got = decode_replica_fetch_request(std::span<const std::byte>(body).first(n));
    ASSERT_FALSE(got.ok()) << n;
    EXPECT_EQ(got.status().code(), ErrorCode::kCorruptMessage);
  }
  body.push_back(std::byte{0});
  EXPECT_FALSE(decode_replica_fetch_request(body).ok());
}

// A count larger than the bytes left is refused before anything is sized.
TEST(ReplicationCodec, HugeCountsAreRejected) {
  // replica id, broker epoch, max wait, min bytes, max bytes, then a topic
  // count of 2^31-1 with nothing after it.
  std::vector<std::byte> body(24, std::byte{0});
  for (std::byte b : {std::byte{0x7f}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}})
    body.push_back(b);
  auto got = decode_replica_fetch_request(body);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("topics"), std::string::npos) << got.status().to_string();

  // DescribeCluster: controller id and epoch, then 2^31-1 brokers.
  std::vector<std::byte> cluster(12, std::byte{0});
  for (std::byte b : {std::byte{0x7f}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}})
    cluster.push_back(b);
  EXPECT_FALSE(decode_describe_cluster_response(cluster).ok());

  // A negative replica count inside a partition.
  std::vector<std::byte> negative;
  auto put32 = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) negative.push_back(std::byte((v >> s) & 0xff));
  };
  put32(1);  // controller id
  put32(0);
  put32(0);  // controller epoch
  put32(0);  // brokers
  put32(1);  // topics
  negative.push_back(std::byte{0});
  negative.push_back(std::byte{1});
  negative.push_back(std::byte{'t'});
  put32(1);  // partitions
  put32(0);  // partition
  put32(1);  // leader
  put32(0);  // leader epoch
  put32(0xfffffffe);  // replicas: -2
  EXPECT_FALSE(decode_describe_cluster_response(negative).ok());
}

}  // namespace
}  // namespace spillway::messages
