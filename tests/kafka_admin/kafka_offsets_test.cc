// Kafka OffsetCommit and OffsetFetch against the real broker: a librdkafka
// consumer that uses assign() commits and reads back, offsets are shared
// with the native protocol both ways, and by hand the versions and cases
// librdkafka does not produce (all partitions, v1, v8 batches, a commit
// from a group generation).
#include <gtest/gtest.h>

#include "broker_process.h"
#include "kafka_wire_client.h"
#include "rdkafka_support.h"
#include "spillway/admin.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/offset_commit.h"
#include "spillway/common/kafka/offset_fetch.h"
#include "spillway/consumer.h"

namespace spillway::testing {
namespace {

struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const {
    rd_kafka_topic_partition_list_destroy(l);
  }
};
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;

PartitionList partitions(const std::string& topic,
                         const std::vector<std::pair<int32_t, int64_t>>& offsets) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [p, o] : offsets) {
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset = o;
  }
  return list;
}

class KafkaOffsetsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = BrokerProcess::start();
    ASSERT_TRUE(started.ok()) << started.status().to_string();
    broker_ = std::move(*started).release();
    Result<Admin> admin = Admin::connect(broker_->address());
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    TopicOptions options;
    options.partitions = 2;
    ASSERT_TRUE(admin->create_topic("offsets", options).ok());
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }

  KafkaHandle consumer(const std::string& group) {
    return make_client(RD_KAFKA_CONSUMER, broker_->kafka_address(),
                       {{"group.id", group}, {"enable.auto.commit", "false"}});
  }

  std::unique_ptr<Consumer> native(const std::string& group) {
    ConsumerOptions options;
    options.bootstrap = broker_->address();
    options.group_id = group;
    Result<std::unique_ptr<Consumer>> c = Consumer::create(options);
    EXPECT_TRUE(c.ok()) << c.status().to_string();
    return c.ok() ? std::move(*c) : nullptr;
  }

  // The group's committed offsets of "offsets" partitions 0 and 1, read
  // through librdkafka.
  std::vector<int64_t> committed_by_kafka(const std::string& group) {
    KafkaHandle rk = consumer(group);
    PartitionList list = partitions("offsets", {{0, -1}, {1, -1}});
    EXPECT_EQ(rd_kafka_committed(rk.get(), list.get(), kGuardMs), RD_KAFKA_RESP_ERR_NO_ERROR);
    std::vector<int64_t> out;
    for (int i = 0; i < list->cnt; ++i) {
      EXPECT_EQ(list->elems[i].err, RD_KAFKA_RESP_ERR_NO_ERROR);
      out.push_back(list->elems[i].offset);
    }
    return out;
  }

  static BrokerProcess* broker_;
};

BrokerProcess* KafkaOffsetsTest::broker_ = nullptr;

TEST_F(KafkaOffsetsTest, AnAssignedConsumerCommitsAndReadsBack) {
  KafkaHandle rk = consumer("assigned");
  PartitionList assignment =
      partitions("offsets", {{0, RD_KAFKA_OFFSET_BEGINNING}, {1, RD_KAFKA_OFFSET_BEGINNING}});
  ASSERT_EQ(rd_kafka_assign(rk.get(), assignment.get()), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(committed_by_kafka("assigned"),
            (std::vector<int64_t>{RD_KAFKA_OFFSET_INVALID, RD_KAFKA_OFFSET_INVALID}));

  PartitionList offsets = partitions("offsets", {{0, 5}, {1, 7}});
  ASSERT_EQ(rd_kafka_commit(rk.get(), offsets.get(), /*async=*/0), RD_KAFKA_RESP_ERR_NO_ERROR);
  PartitionList read = partitions("offsets", {{0, -1}, {1, -1}});
  ASSERT_EQ(rd_kafka_committed(rk.get(), read.get(), kGuardMs), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(read->elems[0].offset, 5);
  EXPECT_EQ(read->elems[1].offset, 7);
  // Another client of the group sees them too.
  EXPECT_EQ(committed_by_kafka("assigned"), (std::vector<int64_t>{5, 7}));
  rd_kafka_consumer_close(rk.get());
}

TEST_F(KafkaOffsetsTest, ACommitToAnUnknownPartitionIsRefusedAlone) {
  KafkaHandle rk = consumer("partly");
  PartitionList offsets = partitions("offsets", {{0, 3}, {9, 3}});
  // librdkafka reports the first partition error of a synchronous commit.
  EXPECT_EQ(rd_kafka_commit(rk.get(), offsets.get(), /*async=*/0),
            RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
  EXPECT_EQ(committed_by_kafka("partly")[0], 3);
}

TEST_F(KafkaOffsetsTest, OffsetsCommittedThroughKafkaAreTheNativeOnes) {
  KafkaHandle rk = consumer("shared");
  PartitionList offsets = partitions("offsets", {{0, 11}, {1, 12}});
  ASSERT_EQ(rd_kafka_commit(rk.get(), offsets.get(), /*async=*/0), RD_KAFKA_RESP_ERR_NO_ERROR);
  std::unique_ptr<Consumer> native_consumer = native("shared");
  ASSERT_NE(native_consumer, nullptr);
  Result<int64_t> got = native_consumer->committed("offsets", 0);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(*got, 11);
  got = native_consumer->committed("offsets", 1);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(*got, 12);

  // And the other way round.
  const TopicPartitionOffset commit[] = {{"offsets", 1, 40}};
  ASSERT_TRUE(native_consumer->commit(commit).ok());
  EXPECT_EQ(committed_by_kafka("shared"), (std::vector<int64_t>{11, 40}));
}

TEST_F(KafkaOffsetsTest, FetchesEveryCommittedPartitionAndOldAndBatchedVersions) {
  KafkaWireClient client(broker_->kafka_port());
  ASSERT_TRUE(client.connected());
  using kafka::OffsetCommitRequest;
  using kafka::OffsetCommitResponse;
  const OffsetCommitRequest::Partition parts[] = {
      {.partition_index = 1, .committed_offset = 21, .committed_metadata = "m"},
      {.partition_index = 0, .committed_offset = 20, .committed_metadata = std::nullopt}};
  const OffsetCommitRequest::Topic topic{.name = "offsets", .partitions = parts};
  OffsetCommitRequest commit;
  commit.group_id = "by-hand";
  commit.topics = std::span(&topic, 1);
  for (int16_t version : {2, 8}) {
    Result<OffsetCommitResponse> committed = client.try_call<OffsetCommitResponse>(commit, version);
    ASSERT_TRUE(committed.ok()) << committed.status().to_string();
    for (const OffsetCommitResponse::Topic& t : committed->topics) {
      for (const OffsetCommitResponse::Partition& p : t.partitions) EXPECT_EQ(p.error_code, 0);
    }
  }

  // A commit from a group generation: there are no group generations yet.
  commit.generation_id_or_member_epoch = 3;
  commit.member_id = "member-1";
  Result<OffsetCommitResponse> refused = client.try_call<OffsetCommitResponse>(commit, 7);
  ASSERT_TRUE(refused.ok()) << refused.status().to_string();
  for (const OffsetCommitResponse::Topic& t : refused->topics) {
    for (const OffsetCommitResponse::Partition& p : t.partitions) {
      EXPECT_EQ(p.error_code, kafka::errors::kIllegalGeneration);
    }
  }
  commit.generation_id_or_member_epoch = -1;
  commit.group_id = "";
  refused = client.try_call<OffsetCommitResponse>(commit, 7);
  ASSERT_TRUE(refused.ok()) << refused.status().to_string();
  EXPECT_EQ(refused->topics.begin()->partitions.begin()->error_code,
            kafka::errors::kInvalidGroupId);

  using kafka::OffsetFetchRequest;
  using kafka::OffsetFetchResponse;
  // v2-7: a null topic list asks for every committed partition.
  OffsetFetchRequest fetch;
  fetch.group_id = "by-hand";
  fetch.topics = kafka::Array<OffsetFetchRequest::Topic>::null();
  for (int16_t version : {2, 5, 7}) {
    Result<OffsetFetchResponse> all = client.try_call<OffsetFetchResponse>(fetch, version);
    ASSERT_TRUE(all.ok()) << all.status().to_string();
    EXPECT_EQ(all->error_code, 0);
    ASSERT_EQ(all->topics.size(), 1);
    const OffsetFetchResponse::Topic t = *all->topics.begin();
    EXPECT_EQ(t.name, "offsets");
    std::vector<std::pair<int32_t, int64_t>> got;
    for (const OffsetFetchResponse::Partition& p : t.partitions) {
      got.emplace_back(p.partition_index, p.committed_offset);
      EXPECT_EQ(p.metadata, "");
      EXPECT_EQ(p.error_code, 0);
    }
    EXPECT_EQ(got, (std::vector<std::pair<int32_t, int64_t>>{{0, 20}, {1, 21}}));
  }

  // v1 names partitions; one without a commit, of a topic that does not
  // exist, answers -1 as Kafka does.
  const int32_t wanted[] = {1};
  const OffsetFetchRequest::Topic topics[] = {{.name = "offsets", .partition_indexes = wanted},
                                              {.name = "nowhere", .partition_indexes = wanted}};
  fetch.topics = topics;
  Result<OffsetFetchResponse> named = client.try_call<OffsetFetchResponse>(fetch, 1);
  ASSERT_TRUE(named.ok()) << named.status().to_string();
  ASSERT_EQ(named->topics.size(), 2);
  auto it = named->topics.begin();
  EXPECT_EQ(it->partitions.begin()->committed_offset, 21);
  ++it;
  EXPECT_EQ(it->partitions.begin()->committed_offset, -1);
  EXPECT_EQ(it->partitions.begin()->error_code, 0);

  // v8 batches groups.
  const OffsetFetchRequest::Group groups[] = {
      {.group_id = "by-hand", .topics = kafka::Array<OffsetFetchRequest::Topic>::null()},
      {.group_id = "nobody", .topics = topics}};
  OffsetFetchRequest batched;
  batched.groups = groups;
  Result<OffsetFetchResponse> both = client.try_call<OffsetFetchResponse>(batched, 8);
  ASSERT_TRUE(both.ok()) << both.status().to_string();
  ASSERT_EQ(both->groups.size(), 2);
  auto git = both->groups.begin();
  EXPECT_EQ(git->group_id, "by-hand");
  EXPECT_EQ(git->topics.size(), 1);
  EXPECT_EQ(git->topics.begin()->partitions.size(), 2);
  ++git;
  EXPECT_EQ(git->group_id, "nobody");
  ASSERT_EQ(git->topics.size(), 2);
  EXPECT_EQ(git->topics.begin()->partitions.begin()->committed_offset, -1);
}

}  // namespace
}  // namespace spillway::testing
