// Kafka CreateTopics and DeleteTopics against the real broker, driven by
// librdkafka's admin API, checked through the native Admin client (both
// listeners serve the same topics), plus the versions librdkafka does not
// send, by hand.
#include <gtest/gtest.h>

#include "broker_process.h"
#include "kafka_wire_client.h"
#include "rdkafka_support.h"
#include "spillway/admin.h"
#include "spillway/common/kafka/create_topics.h"
#include "spillway/common/kafka/delete_topics.h"
#include "spillway/common/kafka/error_codes.h"

namespace spillway::testing {
namespace {

class KafkaTopicsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    BrokerProcess::Options options;
    options.args = {"--retention-ms", "3600000"};
    auto started = BrokerProcess::start(options);
    ASSERT_TRUE(started.ok()) << started.status().to_string();
    broker_ = std::move(*started).release();
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }

  Admin native() {
    Result<Admin> admin = Admin::connect(broker_->address());
    EXPECT_TRUE(admin.ok()) << admin.status().to_string();
    return std::move(*admin);
  }

  static BrokerProcess* broker_;
};

BrokerProcess* KafkaTopicsTest::broker_ = nullptr;

TEST_F(KafkaTopicsTest, CreatesATopicWithPartitionsAndConfigs) {
  KafkaAdmin admin(broker_->kafka_address());
  auto out = create_topic(admin, "k-created", 3, 1,
                          {{"retention.ms", "60000"},
                           {"retention.bytes", "1048576"},
                           {"segment.bytes", "65536"},
                           {"spillway.flush.policy", "durable"}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "k-created");
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_NO_ERROR) << out[0].message;

  Result<TopicDescription> topic = native().describe_topic("k-created");
  ASSERT_TRUE(topic.ok()) << topic.status().to_string();
  EXPECT_EQ(topic->partitions.size(), 3u);
  EXPECT_EQ(topic->retention_ms, 60000);
  EXPECT_EQ(topic->retention_bytes, 1048576);
  EXPECT_EQ(topic->flush_policy, "durable");
}

TEST_F(KafkaTopicsTest, ValidateOnlyCreatesNothing) {
  KafkaAdmin admin(broker_->kafka_address());
  auto out = create_topic(admin, "k-validated", 2, 1, {{"retention.ms", "1000"}},
                          /*validate_only=*/true);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_NO_ERROR) << out[0].message;
  EXPECT_EQ(native().describe_topic("k-validated").status().code(), ErrorCode::kUnknownTopic);

  // ... but still refuses what a real create would.
  ASSERT_EQ(create_topic(admin, "k-validated-twice", 1).at(0).error, RD_KAFKA_RESP_ERR_NO_ERROR);
  out = create_topic(admin, "k-validated-twice", 1, 1, {}, /*validate_only=*/true);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS);
}

TEST_F(KafkaTopicsTest, RefusesWhatItCannotCreate) {
  KafkaAdmin admin(broker_->kafka_address());
  ASSERT_EQ(create_topic(admin, "k-twice", 1).at(0).error, RD_KAFKA_RESP_ERR_NO_ERROR);
  auto out = create_topic(admin, "k-twice", 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS);
  EXPECT_NE(out[0].message.find("already exists"), std::string::npos) << out[0].message;

  out = create_topic(admin, "bad/name", 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION);
  EXPECT_FALSE(out[0].message.empty());

  out = create_topic(admin, "k-replicated", 1, 3);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR);

  out = create_topic(admin, "k-configured", 1, 1, {{"compression.type", "zstd"}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_INVALID_CONFIG);
  EXPECT_NE(out[0].message.find("compression.type"), std::string::npos) << out[0].message;

  out = create_topic(admin, "k-configured", 1, 1, {{"retention.ms", "soon"}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_INVALID_CONFIG);

  out = create_topic(admin, "k-configured", 1, 1, {{"cleanup.policy", "compact"}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_INVALID_CONFIG);

  out = create_topic(admin, "k-configured", 1, 1, {{"spillway.flush.policy", "sometimes"}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_INVALID_CONFIG);
  EXPECT_EQ(native().describe_topic("k-configured").status().code(), ErrorCode::kUnknownTopic);
}

TEST_F(KafkaTopicsTest, DeletesATopic) {
  KafkaAdmin admin(broker_->kafka_address());
  ASSERT_EQ(create_topic(admin, "k-deleted", 2).at(0).error, RD_KAFKA_RESP_ERR_NO_ERROR);
  auto out = delete_topic(admin, "k-deleted");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_NO_ERROR) << out[0].message;
  EXPECT_EQ(native().describe_topic("k-deleted").status().code(), ErrorCode::kUnknownTopic);

  out = delete_topic(admin, "k-deleted");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
}

// Versions librdkafka 2.0.2 does not send (it stops at CreateTopics v4 and
// DeleteTopics v3), and fields it does not set.
TEST_F(KafkaTopicsTest, FlexibleVersionsByHand) {
  KafkaWireClient client(broker_->kafka_port());
  ASSERT_TRUE(client.connected());
  using kafka::CreateTopicsRequest;
  using kafka::CreateTopicsResponse;
  const CreateTopicsRequest::Config config{.name = "retention.ms", .value = "120000"};
  const int32_t here[] = {0};
  const CreateTopicsRequest::Assignment assignments[] = {
      {.partition_index = 1, .broker_ids = here}, {.partition_index = 0, .broker_ids = here}};
  CreateTopicsRequest::Topic topics[2];
  topics[0].name = "k-v7";
  topics[0].num_partitions = -1;  // the broker's default (1)
  topics[0].replication_factor = -1;
  topics[0].configs = std::span(&config, 1);
  topics[1].name = "k-v7-assigned";
  topics[1].num_partitions = -1;
  topics[1].replication_factor = -1;
  topics[1].assignments = assignments;
  CreateTopicsRequest request;
  request.topics = topics;
  Result<CreateTopicsResponse> created = client.try_call<CreateTopicsResponse>(request, 7);
  ASSERT_TRUE(created.ok()) << created.status().to_string();
  ASSERT_EQ(created->topics.size(), 2);
  auto it = created->topics.begin();
  const CreateTopicsResponse::Topic first = *it;
  EXPECT_EQ(first.name, "k-v7");
  EXPECT_EQ(first.error_code, 0);
  EXPECT_EQ(first.num_partitions, 1);
  EXPECT_EQ(first.replication_factor, 1);
  bool saw_retention = false;
  for (const CreateTopicsResponse::Config& c : first.configs) {
    if (c.name == "retention.ms") {
      saw_retention = true;
      EXPECT_EQ(c.value, "120000");
    }
  }
  EXPECT_TRUE(saw_retention);
  ++it;
  const CreateTopicsResponse::Topic second = *it;
  EXPECT_EQ(second.error_code, 0) << second.error_message.value_or("");
  EXPECT_EQ(second.num_partitions, 2);

  // The same name twice in one request: refused, nothing created.
  CreateTopicsRequest::Topic twice[2];
  twice[0].name = twice[1].name = "k-v7-twice";
  twice[0].num_partitions = twice[1].num_partitions = 1;
  twice[0].replication_factor = twice[1].replication_factor = 1;
  request.topics = twice;
  created = client.try_call<CreateTopicsResponse>(request, 2);
  ASSERT_TRUE(created.ok()) << created.status().to_string();
  for (const CreateTopicsResponse::Topic& t : created->topics) {
    EXPECT_EQ(t.error_code, kafka::errors::kInvalidRequest);
  }
  EXPECT_EQ(native().describe_topic("k-v7-twice").status().code(), ErrorCode::kUnknownTopic);

  // DeleteTopics v6 names topics by name or id; there are no ids here.
  using kafka::DeleteTopicsRequest;
  using kafka::DeleteTopicsResponse;
  DeleteTopicsRequest::Topic deletes[2];
  deletes[0].name = "k-v7";
  deletes[1].name = std::nullopt;
  deletes[1].topic_id.bytes[0] = std::byte{1};
  DeleteTopicsRequest del;
  del.topics = deletes;
  Result<DeleteTopicsResponse> deleted = client.try_call<DeleteTopicsResponse>(del, 6);
  ASSERT_TRUE(deleted.ok()) << deleted.status().to_string();
  ASSERT_EQ(deleted->responses.size(), 2);
  auto dit = deleted->responses.begin();
  EXPECT_EQ(dit->name, "k-v7");
  EXPECT_EQ(dit->error_code, 0);
  ++dit;
  EXPECT_EQ(dit->error_code, kafka::errors::kUnknownTopicId);

  // v1 by names.
  const std::string_view names[] = {"k-v7-assigned", "k-never"};
  DeleteTopicsRequest old;
  old.topic_names = names;
  deleted = client.try_call<DeleteTopicsResponse>(old, 1);
  ASSERT_TRUE(deleted.ok()) << deleted.status().to_string();
  ASSERT_EQ(deleted->responses.size(), 2);
  dit = deleted->responses.begin();
  EXPECT_EQ(dit->error_code, 0);
  ++dit;
  EXPECT_EQ(dit->error_code, kafka::errors::kUnknownTopicOrPartition);
}

}  // namespace
}  // namespace spillway::testing
