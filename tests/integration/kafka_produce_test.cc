// Kafka Produce against the real broker, over the raw Kafka wire: every
// served version, per-partition errors beside successes in one request,
// the answer in the request's order and shape, acks 0 (no response at all),
// acks -1, and batches too large or damaged.
#include <gtest/gtest.h>

#include <map>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_wire_client.h"
#include "spillway/common/kafka/api_versions.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/metadata.h"
#include "spillway/common/kafka/produce.h"

namespace spillway::testing {
namespace {

namespace errors = kafka::errors;
using kafka::ProduceRequest;
using kafka::ProduceResponse;

class KafkaProduce : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }

  void start(std::vector<std::string> args) {
    BrokerProcess::Options options;
    options.args = std::move(args);
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    ASSERT_NE(broker_->kafka_port(), 0);
    native_ = std::make_unique<WireClient>(broker_->port());
    ASSERT_EQ(native_->create_topic("t", 2), ErrorCode::kOk);
    kafka_ = std::make_unique<KafkaWireClient>(broker_->kafka_port());
    ASSERT_TRUE(kafka_->connected());
  }

  // A produce request of one topic holding `partitions`.
  static ProduceRequest request(std::string_view topic,
                                const std::vector<ProduceRequest::Partition>& partitions,
                                int16_t acks = -1) {
    ProduceRequest r;
    r.acks = acks;
    r.timeout_ms = 5000;
    topics_.clear();
    topics_.push_back({.name = topic, .partition_data = partitions});
    r.topic_data = topics_;
    return r;
  }

  static ProduceRequest::Partition part(int32_t index, const std::vector<std::byte>& batch) {
    ProduceRequest::Partition p;
    p.index = index;
    p.records.bytes = batch;
    return p;
  }

  static inline std::vector<ProduceRequest::Topic> topics_;
  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<WireClient> native_;
  std::unique_ptr<KafkaWireClient> kafka_;
};

// The first element of a decoded array, by value: a decoded array's
// iterator holds the element it parsed, so a reference would dangle.
template <typename A>
auto first(const A& array) {
  return *array.begin();
}

std::vector<std::byte> three_records() {
  return make_batch({{"k1", "v1"}, {"k2", "v2"}, {std::nullopt, "v3"}});
}

TEST_F(KafkaProduce, EveryServedVersionAppendsAndAnswersItsOffsets) {
  const auto batch = three_records();
  int64_t expected = 0;
  for (int16_t version = 3; version <= 9; ++version) {
    KafkaWireClient::Reply reply;
    auto response = kafka_->call<ProduceResponse>(request("t", {part(1, batch)}), version, &reply);
    ASSERT_EQ(response.responses.size(), 1) << "v" << version;
    const ProduceResponse::Topic topic = *response.responses.begin();
    EXPECT_EQ(topic.name, "t");
    ASSERT_EQ(topic.partition_responses.size(), 1);
    const ProduceResponse::Partition p = *topic.partition_responses.begin();
    EXPECT_EQ(p.index, 1);
    EXPECT_EQ(p.error_code, errors::kNone) << "v" << version;
    EXPECT_EQ(p.base_offset, expected) << "v" << version;
    EXPECT_EQ(p.log_append_time_ms, -1);
    if (version >= 5) {
      EXPECT_EQ(p.log_start_offset, 0);
    }
    expected += 3;
  }
  // Stored verbatim, readable through the native protocol.
  FetchResult f = native_->fetch("t", 1, 0, 0, 1 << 20);
  ASSERT_EQ(f.code, ErrorCode::kOk) << f.message;
  auto records = records_in(f.records);
  ASSERT_EQ(records.size(), 21u);
  EXPECT_EQ(records[20].offset, 20);
  EXPECT_EQ(records[20].value, "v3");
}

TEST_F(KafkaProduce, BadPartitionsFailAloneAndAreAnsweredInRequestOrder) {
  const auto good = three_records();
  auto bad_crc = three_records();
  bad_crc.back() ^= std::byte{0x01};
  auto old_magic = three_records();
  old_magic[batch::kMagicPos] = std::byte{1};
  ProduceRequest r;
  r.acks = 1;
  r.timeout_ms = 5000;
  const std::vector<ProduceRequest::Partition> t_parts = {part(1, bad_crc), part(0, good),
                                                          part(7, good), part(1, old_magic)};
  const std::vector<ProduceRequest::Partition> unknown_parts = {part(0, good)};
  const std::vector<ProduceRequest::Topic> topics = {
      {.name = "nope", .partition_data = unknown_parts}, {.name = "t", .partition_data = t_parts}};
  r.topic_data = topics;
  KafkaWireClient::Reply reply;
  auto response = kafka_->call<ProduceResponse>(r, 8, &reply);
  ASSERT_EQ(response.responses.size(), 2);
  auto topic = response.responses.begin();
  EXPECT_EQ(topic->name, "nope");
  ASSERT_EQ(topic->partition_responses.size(), 1);
  EXPECT_EQ(topic->partition_responses.begin()->error_code, errors::kUnknownTopicOrPartition);
  ++topic;
  EXPECT_EQ(topic->name, "t");
  std::vector<std::pair<int32_t, int16_t>> got;
  for (const auto& p : topic->partition_responses) got.emplace_back(p.index, p.error_code);
  const std::vector<std::pair<int32_t, int16_t>> want = {{1, errors::kCorruptMessage},
                                                         {0, errors::kNone},
                                                         {7, errors::kUnknownTopicOrPartition},
                                                         {1, errors::kCorruptMessage}};
  EXPECT_EQ(got, want);
  auto it = topic->partition_responses.begin();
  EXPECT_EQ(it->base_offset, -1);
  EXPECT_TRUE(it->error_message.has_value());  // v8 says why
  ++it;
  EXPECT_EQ(it->base_offset, 0);
  // Only the good batch reached a log.
  EXPECT_EQ(records_in(native_->fetch("t", 0, 0, 0, 1 << 20).records).size(), 3u);
  EXPECT_TRUE(native_->fetch("t", 1, 0, 0, 1 << 20).records.empty());
}

TEST_F(KafkaProduce, AcksZeroGetsNoResponseAndTheNextRequestIsAnswered) {
  const auto batch = three_records();
  ASSERT_TRUE(kafka_->send(request("t", {part(0, batch)}, /*acks=*/0), 7, 100));
  ASSERT_TRUE(kafka_->send(request("t", {part(0, batch)}, /*acks=*/0), 9, 101));
  // The next answer on the connection is the acks=1 request's: 100 and
  // 101 got none.
  ASSERT_TRUE(kafka_->send(request("t", {part(0, batch)}, /*acks=*/1), 7, 102));
  auto reply = kafka_->read<ProduceResponse>(7);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->correlation_id, 102);
  auto response =
      wire::decode<ProduceResponse>(reply->body, kafka::context<ProduceResponse>(7), "");
  ASSERT_TRUE(response.ok());
  const auto p = first(first(response->responses).partition_responses);
  EXPECT_EQ(p.error_code, errors::kNone);
  EXPECT_EQ(p.base_offset, 6);  // after the two unanswered batches
  EXPECT_EQ(records_in(native_->fetch("t", 0, 0, 0, 1 << 20).records).size(), 9u);
}

TEST_F(KafkaProduce, AcksZeroWithAFailedPartitionClosesTheConnection) {
  auto bad = three_records();
  bad.back() ^= std::byte{0x01};
  ASSERT_TRUE(kafka_->send(request("t", {part(0, bad)}, /*acks=*/0), 7, 1));
  EXPECT_TRUE(kafka_->closed_by_peer());
  // Others are served as before.
  KafkaWireClient again(broker_->kafka_port());
  KafkaWireClient::Reply reply;
  auto response = again.call<ProduceResponse>(request("t", {part(0, three_records())}), 7, &reply);
  ASSERT_EQ(response.responses.size(), 1);
  EXPECT_EQ(first(first(response.responses).partition_responses).error_code, errors::kNone);
}

TEST_F(KafkaProduce, AcksAllOnADurableTopicAnswersOnceSynced) {
  ASSERT_EQ(native_->create_topic("d", 1, "durable"), ErrorCode::kOk);
  KafkaWireClient::Reply reply;
  auto response =
      kafka_->call<ProduceResponse>(request("d", {part(0, three_records())}, -1), 9, &reply);
  const auto p = first(first(response.responses).partition_responses);
  EXPECT_EQ(p.error_code, errors::kNone);
  EXPECT_EQ(p.base_offset, 0);
  EXPECT_EQ(records_in(native_->fetch("d", 0, 0, 0, 1 << 20).records).size(), 3u);
}

TEST_F(KafkaProduce, InvalidAcksIsRefusedPerPartition) {
  KafkaWireClient::Reply reply;
  auto response =
      kafka_->call<ProduceResponse>(request("t", {part(0, three_records())}, 2), 7, &reply);
  EXPECT_NE(first(first(response.responses).partition_responses).error_code, errors::kNone);
  EXPECT_TRUE(native_->fetch("t", 0, 0, 0, 1 << 20).records.empty());
}

TEST_F(KafkaProduce, ApiVersionsAnnouncesTheDataPathVersionsServed) {
  kafka::ApiVersionsRequest r;
  r.client_software_name = "test";
  r.client_software_version = "1";
  KafkaWireClient::Reply reply;
  auto response = kafka_->call<kafka::ApiVersionsResponse>(r, 3, &reply);
  std::map<int16_t, std::string> served;
  for (const auto& v : response.api_keys) {
    served[v.api_key] = std::to_string(v.min_version) + "-" + std::to_string(v.max_version);
  }
  EXPECT_EQ(served[0], "3-9");   // Produce
  EXPECT_EQ(served[1], "4-12");  // Fetch
  EXPECT_EQ(served[2], "1-6");   // ListOffsets
}

class KafkaProduceLimits : public KafkaProduce {
 protected:
  void SetUp() override { start({"--max-batch-bytes", "4096"}); }
};

TEST_F(KafkaProduceLimits, ABatchOverMaxBatchBytesIsMessageTooLarge) {
  const auto big = make_batch({{"k", std::string(5000, 'x')}});
  const auto small = three_records();
  KafkaWireClient::Reply reply;
  auto response =
      kafka_->call<ProduceResponse>(request("t", {part(0, big), part(1, small)}), 8, &reply);
  auto it = response.responses.begin()->partition_responses.begin();
  EXPECT_EQ(it->error_code, errors::kMessageTooLarge);
  ++it;
  EXPECT_EQ(it->error_code, errors::kNone);
  // The producer carries on.
  response = kafka_->call<ProduceResponse>(request("t", {part(0, small)}), 8, &reply);
  EXPECT_EQ(first(first(response.responses).partition_responses).error_code, errors::kNone);
  EXPECT_EQ(first(first(response.responses).partition_responses).base_offset, 0);
}

}  // namespace
}  // namespace spillway::testing
