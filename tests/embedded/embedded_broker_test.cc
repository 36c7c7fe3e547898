// spillway::testing::EmbeddedBroker (testing/): a broker inside this test
// process serves the native client and Kafka's protocol, creates the topics
// it is given, can run twice at once and again after the first, leaves no
// thread, directory or signal handler behind, and refuses bad options. One
// test reports the time from start() to the first acknowledged record
// (measured, printed, never asserted).
#include "spillway/testing/embedded_broker.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "kafka_wire_client.h"
#include "spillway/admin.h"
#include "spillway/common/kafka/requests.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

using std::chrono::milliseconds;

// Threads of this process right now (/proc/self/task), without the kernel's
// io_uring workers ("iou-wrk-..."): the client library's gather writes may
// use io_uring, and the kernel ends those workers on its own schedule.
size_t thread_count() {
  size_t n = 0;
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind("iou-", 0) != 0) ++n;
  }
  ::closedir(dir);
  return n;
}

// The disposition of `signo` in this process, as a number to compare.
uintptr_t handler_of(int signo) {
  struct sigaction current {};
  ::sigaction(signo, nullptr, &current);
  return reinterpret_cast<uintptr_t>(current.sa_handler);
}

std::unique_ptr<EmbeddedBroker> start_broker(const EmbeddedBrokerOptions& options = {}) {
  auto broker = EmbeddedBroker::start(options);
  EXPECT_TRUE(broker.ok()) << broker.status().to_string();
  return broker.ok() ? std::move(broker).value() : nullptr;
}

// Produces `values` to partition-less `topic` and waits for the acks.
Status produce(const EmbeddedBroker& broker, const std::string& topic,
               const std::vector<std::string>& values) {
  ProducerOptions options;
  options.bootstrap = broker.native_address();
  auto producer = Producer::create(options);
  if (!producer.ok()) return producer.status();
  for (const std::string& value : values) (*producer)->send(topic, "key", value);
  return (*producer)->close();
}

// Reads every partition of `topic` from the start until `count` records
// arrived (or 100 empty polls) and returns their values.
std::vector<std::string> consume(const EmbeddedBroker& broker, const std::string& topic,
                                 size_t count) {
  ConsumerOptions options;
  options.bootstrap = broker.native_address();
  auto consumer = Consumer::create(options);
  EXPECT_TRUE(consumer.ok()) << consumer.status().to_string();
  if (!consumer.ok()) return {};
  EXPECT_TRUE((*consumer)->assign(topic).ok());
  std::vector<std::string> values;
  for (int polls = 0; values.size() < count && polls < 100; ++polls) {
    auto records = (*consumer)->poll(milliseconds(100));
    EXPECT_TRUE(records.ok()) << records.status().to_string();
    if (!records.ok()) break;
    for (const ConsumerRecord& r : *records) values.emplace_back(r.value_string());
  }
  return values;
}

TEST(EmbeddedBroker, StartsAndAcknowledgesAFirstRecordInMilliseconds) {
  const auto begin = std::chrono::steady_clock::now();
  auto broker = start_broker({.topics = {{.name = "first", .partitions = 1}}});
  ASSERT_NE(broker, nullptr);
  const auto started = std::chrono::steady_clock::now();
  ProducerOptions options;
  options.bootstrap = broker->native_address();
  auto producer = Producer::create(options);
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();
  Result<RecordMetadata> acked = (*producer)->send("first", "k", "v").get();
  const auto produced = std::chrono::steady_clock::now();
  ASSERT_TRUE(acked.ok()) << acked.status().to_string();
  EXPECT_EQ(acked->offset, 0);
  ASSERT_TRUE((*producer)->close().ok());

  const auto us = [](auto d) {
    return static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
  };
  // Measured, not asserted: issue 17's closing note reports it.
  ::testing::Test::RecordProperty("start_to_first_produce_us",
                                  std::to_string(us(produced - begin)));
  std::printf(
      "[ measured ] EmbeddedBroker start (1 core, 1 topic) %lld us, start to first acknowledged "
      "record %lld us\n",
      us(started - begin), us(produced - begin));
}

TEST(EmbeddedBroker, CreatesTheTopicsItIsGivenWithTheirPartitions) {
  auto broker = start_broker(
      {.topics = {{.name = "orders", .partitions = 3}, {.name = "audit", .partitions = 1}}});
  ASSERT_NE(broker, nullptr);
  auto admin = Admin::connect(broker->native_address());
  ASSERT_TRUE(admin.ok()) << admin.status().to_string();
  Result<TopicDescription> orders = admin->describe_topic("orders");
  ASSERT_TRUE(orders.ok()) << orders.status().to_string();
  EXPECT_EQ(orders->partitions.size(), 3u);
  Result<TopicDescription> audit = admin->describe_topic("audit");
  ASSERT_TRUE(audit.ok()) << audit.status().to_string();
  EXPECT_EQ(audit->partitions.size(), 1u);
  EXPECT_EQ(broker->create_topic({.name = "orders"}).code(), ErrorCode::kTopicExists);
  EXPECT_TRUE(broker->create_topic({.name = "later", .partitions = 2}).ok());
  Result<TopicDescription> later = admin->describe_topic("later");
  ASSERT_TRUE(later.ok()) << later.status().to_string();
  EXPECT_EQ(later->partitions.size(), 2u);
}

TEST(EmbeddedBroker, ARecordProducedIsConsumed) {
  auto broker = start_broker({.cores = 2, .topics = {{.name = "events", .partitions = 4}}});
  ASSERT_NE(broker, nullptr);
  ASSERT_TRUE(produce(*broker, "events", {"a", "b", "c"}).ok());
  EXPECT_EQ(consume(*broker, "events", 3), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(EmbeddedBroker, ServesKafkasProtocolOnItsKafkaAddress) {
  auto broker = start_broker();
  ASSERT_NE(broker, nullptr);
  ASSERT_NE(broker->kafka_port(), 0);
  EXPECT_EQ(broker->kafka_address(), "127.0.0.1:" + std::to_string(broker->kafka_port()));
  KafkaWireClient client(broker->kafka_port());
  KafkaWireClient::Reply reply;
  const kafka::ApiVersionsResponse r = client.call<kafka::ApiVersionsResponse>(
      kafka::ApiVersionsRequest{.client_software_name = "t", .client_software_version = "1"}, 3,
      &reply);
  EXPECT_EQ(r.error_code, 0);
  EXPECT_FALSE(r.api_keys.empty());

  auto native_only = start_broker({.kafka_listener = false});
  ASSERT_NE(native_only, nullptr);
  EXPECT_EQ(native_only->kafka_port(), 0);
  EXPECT_EQ(native_only->kafka_address(), "");
}

TEST(EmbeddedBroker, TwoAtOnceAreSeparateBrokers) {
  auto one = start_broker({.topics = {{.name = "only-in-one"}}});
  auto two = start_broker();
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  EXPECT_NE(one->native_port(), two->native_port());
  EXPECT_NE(one->data_dir(), two->data_dir());
  ASSERT_TRUE(produce(*one, "only-in-one", {"x"}).ok());
  auto admin = Admin::connect(two->native_address());
  ASSERT_TRUE(admin.ok()) << admin.status().to_string();
  EXPECT_EQ(admin->describe_topic("only-in-one").status().code(), ErrorCode::kUnknownTopic);
  // The first goes; the second still serves.
  one.reset();
  ASSERT_TRUE(two->create_topic({.name = "in-two"}).ok());
  ASSERT_TRUE(produce(*two, "in-two", {"y"}).ok());
  EXPECT_EQ(consume(*two, "in-two", 1), (std::vector<std::string>{"y"}));
}

TEST(EmbeddedBroker, LeavesNoThreadNoDirectoryAndNoSignalHandlerBehind) {
  const size_t threads_before = thread_count();
  const auto sigint_before = handler_of(SIGINT);
  const auto sigterm_before = handler_of(SIGTERM);
  const auto sighup_before = handler_of(SIGHUP);
  std::string data_dir;
  for (int round = 0; round < 2; ++round) {  // and a second after the first
    auto broker = start_broker({.cores = 2, .topics = {{.name = "t", .partitions = 2}}});
    ASSERT_NE(broker, nullptr);
    data_dir = broker->data_dir();
    EXPECT_TRUE(std::filesystem::is_directory(data_dir));
    EXPECT_GT(thread_count(), threads_before);
    EXPECT_EQ(handler_of(SIGINT), sigint_before);
    EXPECT_EQ(handler_of(SIGTERM), sigterm_before);
    EXPECT_EQ(handler_of(SIGHUP), sighup_before);
    ASSERT_TRUE(produce(*broker, "t", {"r" + std::to_string(round)}).ok());
    EXPECT_EQ(consume(*broker, "t", 1), (std::vector<std::string>{"r" + std::to_string(round)}));
    broker.reset();
    EXPECT_FALSE(std::filesystem::exists(data_dir));
    EXPECT_EQ(thread_count(), threads_before);
  }
}

TEST(EmbeddedBroker, RefusesBadOptions) {
  EXPECT_EQ(EmbeddedBroker::start({.cores = 0}).status().code(), ErrorCode::kConfig);
  EXPECT_EQ(EmbeddedBroker::start({.cores = 1000}).status().code(), ErrorCode::kConfig);
  EXPECT_EQ(EmbeddedBroker::start({.log_level = "loud"}).status().code(), ErrorCode::kConfig);
  Result<std::unique_ptr<EmbeddedBroker>> bad_topic =
      EmbeddedBroker::start({.topics = {{.name = "t", .partitions = 0}}});
  EXPECT_EQ(bad_topic.status().code(), ErrorCode::kInvalidArgument)
      << bad_topic.status().to_string();
}

}  // namespace
}  // namespace spillway::testing
