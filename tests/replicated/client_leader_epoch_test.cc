// KIP-320 on the Kafka listener of a cluster: a client's
// current_leader_epoch in Fetch (v9+) and ListOffsets (v4+) is checked
// against the partition's. After a failover, a client still at the old
// epoch is told FENCED_LEADER_EPOCH (its metadata is stale: refresh), one
// ahead of the broker UNKNOWN_LEADER_EPOCH (the broker has not caught up:
// retry), and -1 is not checked (clients before KIP-320, librdkafka 2.0).
#include <gtest/gtest.h>
#include <signal.h>

#include <array>
#include <chrono>
#include <memory>
#include <thread>

#include "cluster_harness.h"
#include "kafka_wire_client.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/fetch.h"
#include "spillway/common/kafka/list_offsets.h"
#include "spillway/common/kafka/metadata.h"

namespace spillway::testing {
namespace {

namespace errors = kafka::errors;

constexpr const char* kTopic = "epochs";

struct Leadership {
  int32_t leader = -1;
  int32_t epoch = -1;
};

// Partition 0's leader and leader epoch, as broker `index` describes it.
Leadership leadership(ClusterHarness& cluster, int index) {
  KafkaWireClient client(cluster.broker(index).kafka_port());
  const std::array<kafka::MetadataRequest::Topic, 1> wanted{{{.name = kTopic}}};
  kafka::MetadataRequest request;
  request.topics = wanted;
  request.allow_auto_topic_creation = false;
  KafkaWireClient::Reply reply;
  const kafka::MetadataResponse r = client.call<kafka::MetadataResponse>(request, 9, &reply);
  for (const kafka::MetadataResponse::Topic& t : r.topics) {
    for (const kafka::MetadataResponse::Partition& p : t.partitions) {
      if (p.partition_index == 0) return {p.leader_id, p.leader_epoch};
    }
  }
  return {};
}

int16_t fetch_error(KafkaWireClient& client, int32_t current_leader_epoch) {
  kafka::FetchRequest request;
  request.max_wait_ms = 0;
  request.min_bytes = 0;
  request.max_bytes = 1 << 20;
  kafka::FetchRequest::Partition part;
  part.partition = 0;
  part.fetch_offset = 0;
  part.partition_max_bytes = 1 << 20;
  part.current_leader_epoch = current_leader_epoch;
  const std::array<kafka::FetchRequest::Partition, 1> parts{part};
  const std::array<kafka::FetchRequest::Topic, 1> topics{{{.topic = kTopic, .partitions = parts}}};
  request.topics = topics;
  KafkaWireClient::Reply reply;
  const kafka::FetchResponse r = client.call<kafka::FetchResponse>(request, 11, &reply);
  for (const kafka::FetchResponse::Topic& t : r.responses) {
    for (const kafka::FetchResponse::Partition& p : t.partitions) return p.error_code;
  }
  return -100;  // no partition in the answer
}

int16_t list_offsets_error(KafkaWireClient& client, int32_t current_leader_epoch) {
  kafka::ListOffsetsRequest request;
  kafka::ListOffsetsRequest::Partition part;
  part.partition_index = 0;
  part.current_leader_epoch = current_leader_epoch;
  part.timestamp = -1;  // latest
  const std::array<kafka::ListOffsetsRequest::Partition, 1> parts{part};
  const std::array<kafka::ListOffsetsRequest::Topic, 1> topics{
      {{.name = kTopic, .partitions = parts}}};
  request.topics = topics;
  KafkaWireClient::Reply reply;
  const kafka::ListOffsetsResponse r = client.call<kafka::ListOffsetsResponse>(request, 5, &reply);
  for (const kafka::ListOffsetsResponse::Topic& t : r.topics) {
    for (const kafka::ListOffsetsResponse::Partition& p : t.partitions) return p.error_code;
  }
  return -100;
}

TEST(ClientLeaderEpoch, FetchAndListOffsetsFenceAClientWithAnOlderEpochAfterAFailover) {
  Result<std::unique_ptr<ClusterHarness>> started = ClusterHarness::start({});
  ASSERT_TRUE(started.ok()) << started.status().to_string();
  ClusterHarness& cluster = **started;
  ASSERT_TRUE(cluster.create_topic(kTopic, 1, 3, {{"min.insync.replicas", "2"}}).ok());
  ASSERT_TRUE(cluster.wait_for(kTopic, [](const PartitionView& p) { return p.isr.size() == 3; }));

  const Leadership before = leadership(cluster, 0);
  ASSERT_GE(before.leader, 1) << cluster.report(kTopic);
  ASSERT_GE(before.epoch, 0);
  const int victim = before.leader - 1;
  cluster.stop_broker(victim, SIGKILL);
  const int asked = (victim + 1) % cluster.size();
  ASSERT_TRUE(cluster.wait_for(kTopic, [&](const PartitionView& p) {
    return p.leader >= 1 && p.leader != before.leader;
  })) << cluster.report(kTopic);
  // The broker asked may learn the new epoch a little after librdkafka
  // saw the new leader, and the new leader starts serving it a little
  // after its snapshot names it: poll for each (20 ms apart) up to a guard,
  // so the assertions below see the state they are about.
  const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  Leadership after = leadership(cluster, asked);
  while (after.epoch <= before.epoch && std::chrono::steady_clock::now() < guard) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    after = leadership(cluster, asked);
  }
  ASSERT_GT(after.epoch, before.epoch) << cluster.report(kTopic);
  ASSERT_NE(after.leader, before.leader);

  KafkaWireClient leader(cluster.broker(after.leader - 1).kafka_port());
  ASSERT_TRUE(leader.connected());
  while (fetch_error(leader, after.epoch) != errors::kNone &&
         std::chrono::steady_clock::now() < guard) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(fetch_error(leader, before.epoch), errors::kFencedLeaderEpoch);
  EXPECT_EQ(fetch_error(leader, after.epoch + 1), errors::kUnknownLeaderEpoch);
  EXPECT_EQ(fetch_error(leader, after.epoch), errors::kNone);
  EXPECT_EQ(fetch_error(leader, -1), errors::kNone);
  EXPECT_EQ(list_offsets_error(leader, before.epoch), errors::kFencedLeaderEpoch);
  EXPECT_EQ(list_offsets_error(leader, after.epoch + 1), errors::kUnknownLeaderEpoch);
  EXPECT_EQ(list_offsets_error(leader, after.epoch), errors::kNone);

  // The remaining follower, asked at the current epoch: not the leader.
  int follower = -1;
  for (int i = 0; i < cluster.size(); ++i) {
    if (i != victim && ClusterHarness::id_of(i) != after.leader) follower = i;
  }
  ASSERT_GE(follower, 0);
  KafkaWireClient other(cluster.broker(follower).kafka_port());
  ASSERT_TRUE(other.connected());
  EXPECT_EQ(fetch_error(other, after.epoch), errors::kNotLeaderOrFollower);
}

}  // namespace
}  // namespace spillway::testing
