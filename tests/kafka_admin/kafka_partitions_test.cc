// Kafka CreatePartitions against the real broker (librdkafka's admin API):
// the new partitions serve at once on every core, through both protocols,
// and survive a restart.
#include <gtest/gtest.h>
#include <signal.h>

#include "broker_process.h"
#include "kafka_wire_client.h"
#include "rdkafka_support.h"
#include "spillway/admin.h"
#include "spillway/common/kafka/create_partitions.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

std::vector<TopicOutcome> grow(KafkaAdmin& admin, const std::string& topic, int count,
                               bool validate_only = false) {
  char errstr[256];
  rd_kafka_NewPartitions_t* np =
      rd_kafka_NewPartitions_new(topic.c_str(), static_cast<size_t>(count), errstr, sizeof(errstr));
  EXPECT_NE(np, nullptr) << errstr;
  rd_kafka_AdminOptions_t* opts = admin.options(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, validate_only);
  rd_kafka_CreatePartitions(admin.handle(), &np, 1, opts, admin.queue());
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_NewPartitions_destroy(np);
  KafkaEvent ev = admin.wait(RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT);
  EXPECT_TRUE(ev) << "no CreatePartitions result";
  if (!ev) return {};
  size_t n = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_CreatePartitions_result_topics(rd_kafka_event_CreatePartitions_result(ev.get()), &n);
  return topic_outcomes(results, n);
}

// The partition count Kafka's Metadata reports for `topic`.
int kafka_partition_count(KafkaAdmin& admin, const std::string& topic) {
  const rd_kafka_metadata_t* md = nullptr;
  EXPECT_EQ(rd_kafka_metadata(admin.handle(), 1, nullptr, &md, kGuardMs),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  int count = -1;
  for (int i = 0; md != nullptr && i < md->topic_cnt; ++i) {
    if (topic == md->topics[i].topic) count = md->topics[i].partition_cnt;
  }
  if (md != nullptr) rd_kafka_metadata_destroy(md);
  return count;
}

TEST(KafkaPartitionsTest, GrowsATopicOnEveryCoreAndAcrossARestart) {
  TempDir data;
  BrokerProcess::Options options;
  options.default_data_dir = false;
  options.args = {"--data-dir", data.path().string(), "--threads", "2"};
  auto broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  Result<Admin> native = Admin::connect((*broker)->address());
  ASSERT_TRUE(native.ok());
  ASSERT_TRUE(native->create_topic("grown").ok());

  KafkaAdmin admin((*broker)->kafka_address());
  auto out = grow(admin, "grown", 4, /*validate_only=*/true);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_NO_ERROR) << out[0].message;
  EXPECT_EQ(native->describe_topic("grown")->partitions.size(), 1u);

  out = grow(admin, "grown", 4);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_NO_ERROR) << out[0].message;
  EXPECT_EQ(native->describe_topic("grown")->partitions.size(), 4u);
  EXPECT_EQ(kafka_partition_count(admin, "grown"), 4);

  // Every new partition takes records, whichever core owns it, on a fresh
  // connection (which may live on any core).
  ProducerOptions producer_options;
  producer_options.bootstrap = (*broker)->address();
  Result<std::unique_ptr<Producer>> producer = Producer::create(producer_options);
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();
  for (int32_t p = 0; p < 4; ++p) {
    Result<RecordMetadata> sent = (*producer)->send("grown", "k", "v", p).get();
    ASSERT_TRUE(sent.ok()) << p << ": " << sent.status().to_string();
  }

  out = grow(admin, "grown", 3);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_INVALID_PARTITIONS);
  EXPECT_FALSE(out[0].message.empty());
  out = grow(admin, "nowhere", 3);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);

  // The grown topic is what the broker restores.
  producer->reset();
  ASSERT_TRUE((*broker)->stop(SIGTERM).ok());
  broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  native = Admin::connect((*broker)->address());
  ASSERT_TRUE(native.ok());
  Result<TopicDescription> topic = native->describe_topic("grown");
  ASSERT_TRUE(topic.ok()) << topic.status().to_string();
  ASSERT_EQ(topic->partitions.size(), 4u);
  for (const PartitionDescription& p : topic->partitions) EXPECT_EQ(p.high_watermark, 1);
}

TEST(KafkaPartitionsTest, AGrownTopicCanBeDeletedAndMadeAgain) {
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  KafkaAdmin admin((*broker)->kafka_address());
  ASSERT_EQ(create_topic(admin, "again", 1).at(0).error, RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(grow(admin, "again", 3).at(0).error, RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(delete_topic(admin, "again").at(0).error, RD_KAFKA_RESP_ERR_NO_ERROR);
  Result<Admin> native = Admin::connect((*broker)->address());
  ASSERT_TRUE(native.ok());
  EXPECT_EQ(native->describe_topic("again").status().code(), ErrorCode::kUnknownTopic);
  ASSERT_EQ(create_topic(admin, "again", 2).at(0).error, RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(native->describe_topic("again")->partitions.size(), 2u);
}

// v3 (flexible) by hand, with assignments, which librdkafka's API leaves
// out unless asked.
TEST(KafkaPartitionsTest, AssignmentsMustPutNewPartitionsHere) {
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  Result<Admin> native = Admin::connect((*broker)->address());
  ASSERT_TRUE(native.ok());
  ASSERT_TRUE(native->create_topic("placed").ok());
  ASSERT_TRUE(native->create_topic("stepped").ok());

  using kafka::CreatePartitionsRequest;
  using kafka::CreatePartitionsResponse;
  const int32_t here[] = {0};
  const int32_t elsewhere[] = {7};
  const CreatePartitionsRequest::Assignment good[] = {{.broker_ids = here}};
  const CreatePartitionsRequest::Assignment bad[] = {{.broker_ids = elsewhere}};
  CreatePartitionsRequest::Topic topics[4];
  topics[0] = {.name = "placed", .count = 2, .assignments = bad};
  topics[1] = {.name = "stepped", .count = 2, .assignments = good};
  topics[2] = {.name = "stepped", .count = 3, .assignments = {}};
  topics[3] = {.name = "placed", .count = 3, .assignments = good};  // one assignment, two new
  CreatePartitionsRequest request;
  request.topics = std::span(topics, 2);
  KafkaWireClient client((*broker)->kafka_port());
  ASSERT_TRUE(client.connected());
  Result<CreatePartitionsResponse> got = client.try_call<CreatePartitionsResponse>(request, 3);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  std::vector<CreatePartitionsResponse::TopicResult> results(got->results.begin(),
                                                             got->results.end());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].error_code, kafka::errors::kInvalidReplicaAssignment);
  EXPECT_EQ(results[1].error_code, 0) << results[1].error_message.value_or("");
  EXPECT_EQ(native->describe_topic("placed")->partitions.size(), 1u);
  EXPECT_EQ(native->describe_topic("stepped")->partitions.size(), 2u);

  request.topics = std::span(topics + 2, 2);
  topics[2].assignments = kafka::Array<CreatePartitionsRequest::Assignment>::null();
  got = client.try_call<CreatePartitionsResponse>(request, 0);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  results.assign(got->results.begin(), got->results.end());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].error_code, 0) << results[0].error_message.value_or("");
  EXPECT_EQ(results[1].error_code, kafka::errors::kInvalidReplicaAssignment);
  EXPECT_EQ(native->describe_topic("stepped")->partitions.size(), 3u);
}

}  // namespace
}  // namespace spillway::testing
