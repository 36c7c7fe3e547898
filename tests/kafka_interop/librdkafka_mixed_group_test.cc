// One consumer group with a librdkafka member (on the Kafka listener) and a
// native Consumer::subscribe member (on the native listener): the broker's
// one coordinator serves both, each member's assignor reads the other's
// subscription (Kafka's consumer protocol bytes, which the native client
// writes too), and they split the partitions between them, disjoint and
// covering, whichever of them leads; every record is processed.
//
// The waits are bounded only to turn a hang into a failure; no assertion
// is about time.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "spillway/admin.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"
#include "spillway/testing/embedded_broker.h"

namespace spillway::testing {
namespace {

using std::chrono::milliseconds;

constexpr char kTopic[] = "mixed";
constexpr char kGroup[] = "mixed-group";
constexpr int kPartitions = 6;
constexpr int kRecords = 3'000;

struct Observed {
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::string> processed;
  std::vector<TopicPartition> native_parts, kafka_parts;
  bool native_seen = false, kafka_seen = false;

  template <typename Pred>
  bool wait_for(Pred pred) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(60), pred);
  }
  bool split() const {
    if (!native_seen || !kafka_seen || native_parts.empty() || kafka_parts.empty()) return false;
    std::set<TopicPartition> all(native_parts.begin(), native_parts.end());
    for (const TopicPartition& tp : kafka_parts) {
      if (!all.insert(tp).second) return false;
    }
    return all.size() == kPartitions;
  }
};

void native_member(const std::string& address, Observed& o, std::atomic<bool>& stop,
                   GroupAssignor assignor) {
  ConsumerOptions options;
  options.bootstrap = address;
  options.group_id = kGroup;
  options.assignor = assignor;
  options.session_timeout = milliseconds(6'000);
  options.heartbeat_interval = milliseconds(300);
  options.rebalance_timeout = milliseconds(20'000);
  options.fetch_max_wait = milliseconds(100);
  auto consumer = Consumer::create(options);
  ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
  ASSERT_TRUE((*consumer)->subscribe({kTopic}).ok());
  while (!stop) {
    auto records = (*consumer)->poll(milliseconds(100));
    if (!records.ok()) continue;
    {
      std::lock_guard lock(o.mu);
      for (const ConsumerRecord& r : *records) o.processed.emplace(r.value_string());
      o.native_parts = (*consumer)->assignment();
      o.native_seen = true;
    }
    o.cv.notify_all();
    if (!records->empty()) (void)(*consumer)->commit();
  }
  EXPECT_TRUE((*consumer)->close().ok());
}

void kafka_member(const std::string& address, Observed& o, std::atomic<bool>& stop,
                  const char* strategy) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  const std::pair<const char*, std::string> settings[] = {
      {"bootstrap.servers", address},
      {"group.id", kGroup},
      {"partition.assignment.strategy", strategy},
      {"session.timeout.ms", "6000"},
      {"heartbeat.interval.ms", "300"},
      {"auto.offset.reset", "earliest"},
      {"log_level", "3"}};
  for (const auto& [k, v] : settings) {
    ASSERT_EQ(rd_kafka_conf_set(conf, k, v.c_str(), error, sizeof error), RD_KAFKA_CONF_OK)
        << k << ": " << error;
  }
  rd_kafka_t* k = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  ASSERT_NE(k, nullptr) << error;
  rd_kafka_poll_set_consumer(k);
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, kTopic, RD_KAFKA_PARTITION_UA);
  EXPECT_EQ(rd_kafka_subscribe(k, topics), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(topics);
  while (!stop) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(k, 100);
    std::vector<TopicPartition> parts;
    rd_kafka_topic_partition_list_t* assigned = nullptr;
    if (rd_kafka_assignment(k, &assigned) == RD_KAFKA_RESP_ERR_NO_ERROR && assigned) {
      for (int i = 0; i < assigned->cnt; ++i) {
        parts.push_back({assigned->elems[i].topic, assigned->elems[i].partition});
      }
      rd_kafka_topic_partition_list_destroy(assigned);
    }
    std::sort(parts.begin(), parts.end());
    {
      std::lock_guard lock(o.mu);
      if (m && !m->err) {
        o.processed.emplace(static_cast<const char*>(m->payload), m->len);
      }
      o.kafka_parts = std::move(parts);
      o.kafka_seen = true;
    }
    o.cv.notify_all();
    if (m) rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(k);
  rd_kafka_destroy(k);
}

// (assignor, whether the native member joins first and so leads the group;
// otherwise librdkafka leads and assigns from the native member's bytes).
class MixedGroup : public ::testing::TestWithParam<std::tuple<GroupAssignor, bool>> {};

TEST_P(MixedGroup, LibrdkafkaAndNativeMembersSplitThePartitions) {
  // In this process (EmbeddedBroker): nothing here needs a broker process.
  auto broker = EmbeddedBroker::start(
      {.cores = 2, .group_min_session_timeout = std::chrono::milliseconds(100)});
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  const std::string native = (*broker)->native_address();
  auto admin = Admin::connect(native);
  ASSERT_TRUE(admin.ok());
  TopicOptions topic;
  topic.partitions = kPartitions;
  ASSERT_TRUE(admin->create_topic(kTopic, topic).ok());
  {
    ProducerOptions po;
    po.bootstrap = native;
    auto producer = Producer::create(po);
    ASSERT_TRUE(producer.ok());
    for (int i = 0; i < kRecords; ++i) {
      const std::string key = "k" + std::to_string(i % 31), value = "v" + std::to_string(i);
      (*producer)->send(kTopic, std::as_bytes(std::span(key.data(), key.size())),
                        std::as_bytes(std::span(value.data(), value.size())), {}, {});
    }
    ASSERT_TRUE((*producer)->flush().ok());
  }

  Observed o;
  std::atomic<bool> stop{false};
  const auto [assignor, native_first] = GetParam();
  const bool cooperative = assignor == GroupAssignor::kCooperativeSticky;
  std::thread a, b;
  const auto start_native = [&] {
    a = std::thread([&] { native_member(native, o, stop, assignor); });
  };
  const auto start_kafka = [&] {
    b = std::thread([&] {
      kafka_member((*broker)->kafka_address(), o, stop,
                   cooperative ? "cooperative-sticky" : "range");
    });
  };
  // The first member alone gets everything, and leads from then on.
  if (native_first) {
    start_native();
    EXPECT_TRUE(o.wait_for([&] { return o.native_parts.size() == kPartitions; }));
    start_kafka();
  } else {
    start_kafka();
    EXPECT_TRUE(o.wait_for([&] { return o.kafka_parts.size() == kPartitions; }));
    start_native();
  }
  EXPECT_TRUE(o.wait_for([&] { return o.split(); }))
      << o.native_parts.size() << " native, " << o.kafka_parts.size() << " librdkafka";
  EXPECT_TRUE(o.wait_for([&] { return o.processed.size() == kRecords; })) << o.processed.size();
  stop = true;
  if (a.joinable()) a.join();
  if (b.joinable()) b.join();
}

INSTANTIATE_TEST_SUITE_P(Assignors, MixedGroup,
                         ::testing::Combine(::testing::Values(GroupAssignor::kRange,
                                                              GroupAssignor::kCooperativeSticky),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == GroupAssignor::kRange
                                                  ? "Range"
                                                  : "CooperativeSticky") +
                                  (std::get<1>(info.param) ? "NativeLeads" : "LibrdkafkaLeads");
                         });

}  // namespace
}  // namespace spillway::testing
