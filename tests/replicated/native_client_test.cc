// The native Producer and Consumer in a cluster (issue 16, "Clients"): they
// learn the brokers and each partition's leader from a bootstrap broker
// (DescribeCluster) and send each partition's requests to its leader; when
// a leader is SIGKILLed they follow the new one. With acks=all and
// idempotence nothing acknowledged is lost or stored twice, and the
// consumer reads back exactly what was acknowledged.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "cluster_harness.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

constexpr const char* kTopic = "native";
constexpr int kPartitions = 3;

// What the producer's callbacks saw: each acknowledged record's place.
struct AckedPlaces {
  std::mutex mu;
  std::map<std::pair<int32_t, int64_t>, std::string> at;  // (partition, offset) -> value
  int failed = 0;
  std::string first_error;
};

struct Sent {
  AckedPlaces* acks;
  std::string value;
};

void delivered(void* context, const Status& st, const RecordMetadata& m) {
  std::unique_ptr<Sent> sent(static_cast<Sent*>(context));
  std::lock_guard lock(sent->acks->mu);
  if (!st.ok()) {
    if (sent->acks->failed++ == 0) sent->acks->first_error = st.to_string();
    return;
  }
  sent->acks->at[{m.partition, m.offset}] = sent->value;
}

void send_range(Producer& producer, AckedPlaces& acks, int from, int to) {
  for (int i = from; i < to; ++i) {
    const std::string key = "key-" + std::to_string(i % 64);
    auto* sent = new Sent{&acks, "value-" + std::to_string(i)};
    producer.send(kTopic, std::as_bytes(std::span(key)), std::as_bytes(std::span(sent->value)), {},
                  DeliveryCallback{&delivered, sent});
  }
}

TEST(NativeClientInCluster, ProducerAndConsumerFollowTheLeadersAcrossASigkill) {
  Result<std::unique_ptr<ClusterHarness>> started = ClusterHarness::start({});
  ASSERT_TRUE(started.ok()) << started.status().to_string();
  ClusterHarness& cluster = **started;
  ASSERT_TRUE(cluster.create_topic(kTopic, kPartitions, 3, {{"min.insync.replicas", "2"}}).ok());
  ASSERT_TRUE(cluster.wait_for(kTopic, [](const PartitionView& p) { return p.isr.size() == 3; }));

  ProducerOptions po;
  // Two bootstrap brokers: whichever dies, the other answers.
  po.bootstrap = cluster.broker(0).address() + "," + cluster.broker(1).address();
  po.acks = Acks::kAll;
  po.linger = std::chrono::milliseconds(1);
  po.delivery_timeout = std::chrono::seconds(120);
  Result<std::unique_ptr<Producer>> producer = Producer::create(po);
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();
  AckedPlaces acks;

  // Every partition takes records, whichever broker leads it.
  send_range(**producer, acks, 0, 3'000);
  Status flushed = (*producer)->flush();
  ASSERT_TRUE(flushed.ok()) << flushed.to_string() << "\n" << cluster.report(kTopic);
  {
    std::lock_guard lock(acks.mu);
    ASSERT_EQ(acks.failed, 0) << acks.first_error << "\n" << cluster.report(kTopic);
    ASSERT_EQ(acks.at.size(), 3'000u);
  }

  // The leader of partition 0 dies while records keep coming.
  const std::vector<PartitionView> before = cluster.describe(kTopic);
  ASSERT_EQ(before.size(), static_cast<size_t>(kPartitions));
  const int victim = before[0].leader - 1;
  ASSERT_GE(victim, 0);
  std::set<int32_t> leaders;
  for (const PartitionView& p : before) leaders.insert(p.leader);
  EXPECT_GE(leaders.size(), 2u) << "the leaders are not spread: nothing routes to several brokers";
  send_range(**producer, acks, 3'000, 4'500);
  cluster.stop_broker(victim, SIGKILL);
  send_range(**producer, acks, 4'500, 6'000);
  flushed = (*producer)->flush();
  ASSERT_TRUE(flushed.ok()) << flushed.to_string() << "\n" << cluster.report(kTopic);
  {
    std::lock_guard lock(acks.mu);
    ASSERT_EQ(acks.failed, 0) << acks.first_error << "\n" << cluster.report(kTopic);
    ASSERT_EQ(acks.at.size(), 6'000u) << "two records acknowledged at one offset";
  }
  ASSERT_TRUE((*producer)->close().ok());

  // A consumer bootstrapped from a survivor reads every partition from its
  // (new) leader: exactly the acknowledged records, each once.
  ConsumerOptions co;
  co.bootstrap = cluster.broker((victim + 1) % cluster.size()).address();
  Result<std::unique_ptr<Consumer>> consumer = Consumer::create(co);
  ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
  const int32_t all[] = {0, 1, 2};
  ASSERT_TRUE((*consumer)->assign(kTopic, all).ok());
  std::map<std::pair<int32_t, int64_t>, std::string> read;
  std::set<std::string> values;
  int duplicates = 0;
  const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (read.size() < acks.at.size() && std::chrono::steady_clock::now() < guard) {
    Result<ConsumerRecords> records = (*consumer)->poll(std::chrono::milliseconds(500));
    ASSERT_TRUE(records.ok()) << records.status().to_string();
    for (const ConsumerRecord& r : *records) {
      const std::string value(r.value_string());
      if (!values.insert(value).second) ++duplicates;
      read[{r.partition, r.offset}] = value;
    }
  }
  EXPECT_EQ(duplicates, 0);
  EXPECT_EQ(read.size(), acks.at.size()) << cluster.report(kTopic);
  int lost = 0;
  for (const auto& [place, value] : acks.at) {
    auto it = read.find(place);
    if (it == read.end() || it->second != value) ++lost;
  }
  EXPECT_EQ(lost, 0) << "acknowledged records missing or different";
}

}  // namespace
}  // namespace spillway::testing
