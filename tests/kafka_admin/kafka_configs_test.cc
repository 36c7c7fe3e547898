// Kafka DescribeConfigs (through librdkafka's admin API) and
// OffsetForLeaderEpoch (by hand: librdkafka 2.0.2 sends it only after a
// leader change) against the real broker.
#include <gtest/gtest.h>

#include <map>

#include "broker_process.h"
#include "kafka_wire_client.h"
#include "rdkafka_support.h"
#include "spillway/admin.h"
#include "spillway/common/kafka/describe_configs.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/offset_for_leader_epoch.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

struct ConfigEntry {
  std::string value;
  bool read_only = false;
  rd_kafka_ConfigSource_t source = RD_KAFKA_CONFIG_SOURCE_UNKNOWN_CONFIG;
};

struct ResourceDescription {
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::map<std::string, ConfigEntry> configs;
};

std::vector<ResourceDescription> describe(
    KafkaAdmin& admin, const std::vector<std::pair<rd_kafka_ResourceType_t, std::string>>& which) {
  std::vector<rd_kafka_ConfigResource_t*> resources;
  for (const auto& [type, name] : which) {
    resources.push_back(rd_kafka_ConfigResource_new(type, name.c_str()));
  }
  rd_kafka_AdminOptions_t* opts = admin.options(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
  rd_kafka_DescribeConfigs(admin.handle(), resources.data(), resources.size(), opts, admin.queue());
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_ConfigResource_destroy_array(resources.data(), resources.size());
  KafkaEvent ev = admin.wait(RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT);
  EXPECT_TRUE(ev) << "no DescribeConfigs result";
  if (!ev) return {};
  EXPECT_EQ(rd_kafka_event_error(ev.get()), RD_KAFKA_RESP_ERR_NO_ERROR)
      << rd_kafka_event_error_string(ev.get());
  size_t count = 0;
  const rd_kafka_ConfigResource_t** results = rd_kafka_DescribeConfigs_result_resources(
      rd_kafka_event_DescribeConfigs_result(ev.get()), &count);
  std::vector<ResourceDescription> out;
  for (size_t i = 0; i < count; ++i) {
    ResourceDescription d;
    d.error = rd_kafka_ConfigResource_error(results[i]);
    size_t n = 0;
    const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(results[i], &n);
    for (size_t e = 0; e < n; ++e) {
      const char* value = rd_kafka_ConfigEntry_value(entries[e]);
      d.configs[rd_kafka_ConfigEntry_name(entries[e])] = {
          value ? value : "", rd_kafka_ConfigEntry_is_read_only(entries[e]) != 0,
          rd_kafka_ConfigEntry_source(entries[e])};
    }
    out.push_back(std::move(d));
  }
  return out;
}

TEST(KafkaConfigsTest, DescribesTopicsAndTheBroker) {
  BrokerProcess::Options options;
  options.args = {"--retention-ms", "3600000", "--segment-bytes", "1048576"};
  auto broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  Result<Admin> native = Admin::connect((*broker)->address());
  ASSERT_TRUE(native.ok());
  TopicOptions topic;
  topic.partitions = 2;
  topic.flush_policy = "durable";
  topic.retention_bytes = 5'000'000;
  ASSERT_TRUE(native->create_topic("described", topic).ok());

  KafkaAdmin admin((*broker)->kafka_address());
  std::vector<ResourceDescription> got = describe(admin, {{RD_KAFKA_RESOURCE_TOPIC, "described"},
                                                          {RD_KAFKA_RESOURCE_TOPIC, "missing"},
                                                          {RD_KAFKA_RESOURCE_BROKER, "0"}});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].error, RD_KAFKA_RESP_ERR_NO_ERROR);
  std::map<std::string, ConfigEntry>& c = got[0].configs;
  EXPECT_EQ(c["retention.bytes"].value, "5000000");
  EXPECT_EQ(c["retention.bytes"].source, RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG);
  EXPECT_EQ(c["retention.ms"].value, "3600000");
  EXPECT_EQ(c["retention.ms"].source, RD_KAFKA_CONFIG_SOURCE_DEFAULT_CONFIG);
  EXPECT_EQ(c["segment.bytes"].value, "1048576");
  EXPECT_EQ(c["cleanup.policy"].value, "delete");
  EXPECT_EQ(c["max.message.bytes"].value, std::to_string(1 << 20));
  EXPECT_EQ(c["spillway.flush.policy"].value, "durable");
  EXPECT_TRUE(c["spillway.flush.policy"].read_only);

  EXPECT_EQ(got[1].error, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);

  EXPECT_EQ(got[2].error, RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(got[2].configs["log.retention.ms"].value, "3600000");
  EXPECT_EQ(got[2].configs["broker.id"].value, "0");
  EXPECT_EQ(got[2].configs["log.retention.ms"].source, RD_KAFKA_CONFIG_SOURCE_STATIC_BROKER_CONFIG);
}

TEST(KafkaConfigsTest, OffsetForLeaderEpochAnswersTheHighWatermarkOfEpochZero) {
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  Result<Admin> native = Admin::connect((*broker)->address());
  ASSERT_TRUE(native.ok());
  ASSERT_TRUE(native->create_topic("epochs").ok());
  ProducerOptions producer_options;
  producer_options.bootstrap = (*broker)->address();
  Result<std::unique_ptr<Producer>> producer = Producer::create(producer_options);
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();
  for (int i = 0; i < 3; ++i) (*producer)->send("epochs", "k", "v", 0);
  ASSERT_TRUE((*producer)->flush().ok());

  using kafka::OffsetForLeaderEpochRequest;
  using kafka::OffsetForLeaderEpochResponse;
  KafkaWireClient client((*broker)->kafka_port());
  ASSERT_TRUE(client.connected());
  const OffsetForLeaderEpochRequest::Partition asked[] = {
      {.partition = 0, .current_leader_epoch = 0, .leader_epoch = 0},
      {.partition = 0, .current_leader_epoch = -1, .leader_epoch = 5},
      {.partition = 0, .current_leader_epoch = 2, .leader_epoch = 0},
      {.partition = 7, .current_leader_epoch = -1, .leader_epoch = 0}};
  const OffsetForLeaderEpochRequest::Topic topics[] = {{.topic = "epochs", .partitions = asked},
                                                       {.topic = "nowhere", .partitions = asked}};
  OffsetForLeaderEpochRequest request;
  request.replica_id = -1;
  request.topics = topics;
  for (int16_t version = 0; version <= 4; ++version) {
    SCOPED_TRACE(version);
    Result<OffsetForLeaderEpochResponse> got =
        client.try_call<OffsetForLeaderEpochResponse>(request, version);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    ASSERT_EQ(got->topics.size(), 2);
    auto topic = got->topics.begin();
    std::vector<OffsetForLeaderEpochResponse::Partition> parts(topic->partitions.begin(),
                                                               topic->partitions.end());
    ASSERT_EQ(parts.size(), 4u);
    EXPECT_EQ(parts[0].error_code, 0);
    EXPECT_EQ(parts[0].end_offset, 3);
    if (version >= 1) {
      EXPECT_EQ(parts[0].leader_epoch, 0);
    }
    EXPECT_EQ(parts[1].error_code, 0);
    EXPECT_EQ(parts[1].end_offset, -1);
    // The current epoch is checked only from v2, which carries it.
    if (version >= 2) {
      EXPECT_EQ(parts[2].error_code, kafka::errors::kUnknownLeaderEpoch);
    }
    EXPECT_EQ(parts[3].error_code, kafka::errors::kUnknownTopicOrPartition);
    ++topic;
    for (const auto& p : topic->partitions) {
      EXPECT_EQ(p.error_code, kafka::errors::kUnknownTopicOrPartition);
    }
  }
}

}  // namespace
}  // namespace spillway::testing
