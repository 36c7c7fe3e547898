// Kafka Fetch against the real broker, over the raw Kafka wire: every
// served version, the byte limits (max_bytes, partition_max_bytes, KIP-74's
// whole first batch), the long poll (min_bytes, max_wait_ms), offsets out
// of range, unknown partitions and a damaged partition.
#include <gtest/gtest.h>

#include <fstream>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_wire_client.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/fetch.h"
#include "spillway/common/kafka/produce.h"

namespace spillway::testing {
namespace {

namespace errors = kafka::errors;
using kafka::FetchRequest;
using kafka::FetchResponse;

// A copy of one partition of a decoded response (decoded arrays are views
// whose iterators own the element they parsed).
struct FetchedPartition {
  int32_t partition = -1;
  int16_t error_code = -1;
  int64_t high_watermark = -2;
  int64_t last_stable_offset = -2;
  int64_t log_start_offset = -2;
  bool aborted_null = true;
  int32_t preferred_read_replica = -2;
  std::vector<std::byte> records;
};

struct FetchSpec {
  int32_t partition = 0;
  int64_t offset = 0;
  int32_t partition_max_bytes = 1 << 20;
};

class KafkaFetch : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }

  void start(std::vector<std::string> args) {
    BrokerProcess::Options options;
    options.args = std::move(args);
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    native_ = std::make_unique<WireClient>(broker_->port());
    ASSERT_EQ(native_->create_topic("t", 2), ErrorCode::kOk);
    kafka_ = std::make_unique<KafkaWireClient>(broker_->kafka_port());
    ASSERT_TRUE(kafka_->connected());
  }

  // Appends `count` batches of one ~`value_bytes` record each to `partition`.
  void produce(int32_t partition, int count, size_t value_bytes = 10) {
    for (int i = 0; i < count; ++i) {
      auto r = native_->produce(
          "t", partition,
          make_batch({{"k", std::string(value_bytes, static_cast<char>('a' + i))}}));
      ASSERT_EQ(r.size(), 1u);
      ASSERT_EQ(r[0].code, ErrorCode::kOk) << r[0].message;
    }
  }

  static FetchRequest request(const std::vector<FetchRequest::Partition>& partitions,
                              int32_t max_bytes = 1 << 20, int32_t min_bytes = 1,
                              int32_t max_wait_ms = 0) {
    FetchRequest r;
    r.max_wait_ms = max_wait_ms;
    r.min_bytes = min_bytes;
    r.max_bytes = max_bytes;
    r.isolation_level = 1;  // read committed: accepted, nothing is uncommitted
    topics_.clear();
    topics_.push_back({.topic = "t", .partitions = partitions});
    r.topics = topics_;
    return r;
  }

  static std::vector<FetchRequest::Partition> parts(const std::vector<FetchSpec>& specs) {
    std::vector<FetchRequest::Partition> out;
    for (const FetchSpec& s : specs) {
      FetchRequest::Partition p;
      p.partition = s.partition;
      p.fetch_offset = s.offset;
      p.partition_max_bytes = s.partition_max_bytes;
      out.push_back(p);
    }
    return out;
  }

  static std::vector<FetchedPartition> copy(const FetchResponse& response) {
    std::vector<FetchedPartition> out;
    for (const FetchResponse::Topic& topic : response.responses) {
      for (const FetchResponse::Partition& p : topic.partitions) {
        FetchedPartition f;
        f.partition = p.partition_index;
        f.error_code = p.error_code;
        f.high_watermark = p.high_watermark;
        f.last_stable_offset = p.last_stable_offset;
        f.log_start_offset = p.log_start_offset;
        f.aborted_null = p.aborted_transactions.is_null();
        f.preferred_read_replica = p.preferred_read_replica;
        std::span<const std::byte> bytes = p.records;
        f.records.assign(bytes.begin(), bytes.end());
        out.push_back(std::move(f));
      }
    }
    return out;
  }

  std::vector<FetchedPartition> fetch(const FetchRequest& r, int16_t version = 11) {
    KafkaWireClient::Reply reply;
    return copy(kafka_->call<FetchResponse>(r, version, &reply));
  }

  static inline std::vector<FetchRequest::Topic> topics_;
  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<WireClient> native_;
  std::unique_ptr<KafkaWireClient> kafka_;
};

TEST_F(KafkaFetch, EveryServedVersionReturnsTheStoredBatches) {
  ASSERT_NO_FATAL_FAILURE(produce(0, 3));
  for (int16_t version = 4; version <= 12; ++version) {
    SCOPED_TRACE("v" + std::to_string(version));
    auto got = fetch(request(parts({{0, 1}})), version);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].error_code, errors::kNone);
    EXPECT_EQ(got[0].high_watermark, 3);
    EXPECT_EQ(got[0].last_stable_offset, 3);
    if (version >= 5) {
      EXPECT_EQ(got[0].log_start_offset, 0);
    }
    EXPECT_FALSE(got[0].aborted_null);
    if (version >= 11) {
      EXPECT_EQ(got[0].preferred_read_replica, -1);
    }
    auto records = records_in(got[0].records, 1);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].offset, 1);
    EXPECT_EQ(records[1].value, std::string(10, 'c'));
  }
}

TEST_F(KafkaFetch, OffsetsOutsideTheLogAndUnknownPartitionsGetTheirErrors) {
  ASSERT_NO_FATAL_FAILURE(produce(0, 2));
  auto got = fetch(request(parts({{0, 3}, {0, 2}, {9, 0}, {1, -5}})));
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].error_code, errors::kOffsetOutOfRange);
  EXPECT_EQ(got[0].high_watermark, 2);
  EXPECT_EQ(got[1].error_code, errors::kNone);  // at the high watermark: nothing yet
  EXPECT_TRUE(got[1].records.empty());
  EXPECT_EQ(got[2].error_code, errors::kUnknownTopicOrPartition);
  EXPECT_EQ(got[3].error_code, errors::kOffsetOutOfRange);
}

TEST_F(KafkaFetch, ABatchLargerThanEveryLimitComesWholeWhenItIsFirst) {
  ASSERT_NO_FATAL_FAILURE(produce(0, 2, 5000));
  auto got = fetch(request(parts({{0, 0, 100}}), /*max_bytes=*/100));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].error_code, errors::kNone);
  auto records = records_in(got[0].records);
  ASSERT_EQ(records.size(), 1u);  // one whole batch, no more
  EXPECT_EQ(records[0].value.size(), 5000u);
}

TEST_F(KafkaFetch, PartitionAndResponseLimitsHoldWholeBatches) {
  ASSERT_NO_FATAL_FAILURE(produce(0, 3, 1000));
  ASSERT_NO_FATAL_FAILURE(produce(1, 3, 1000));
  const size_t batch = make_batch({{"k", std::string(1000, 'a')}}).size();
  // partition_max_bytes: two batches of partition 0 fit, the third not.
  auto got = fetch(request(parts({{0, 0, static_cast<int32_t>(2 * batch + batch / 2)}})));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].records.size(), 2 * batch);
  // max_bytes over both partitions: partition 0 takes two batches, and
  // partition 1's cannot fit what is left.
  got = fetch(request(parts({{0, 0}, {1, 0}}), static_cast<int32_t>(2 * batch + batch / 2)));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].records.size(), 2 * batch);
  EXPECT_TRUE(got[1].records.empty());
  EXPECT_EQ(got[1].error_code, errors::kNone);
  EXPECT_EQ(got[1].high_watermark, 3);
}

TEST_F(KafkaFetch, LongPollWaitsForMinBytes) {
  ASSERT_NO_FATAL_FAILURE(produce(0, 1));
  const size_t batch = make_batch({{"k", std::string(10, 'a')}}).size();
  // At the high watermark, asking for two batches' worth: the first new
  // batch is not enough, the second is.
  ASSERT_TRUE(kafka_->send(request(parts({{0, 1}}), 1 << 20, static_cast<int32_t>(2 * batch),
                                   /*max_wait_ms=*/30'000),
                           11, 42));
  ASSERT_NO_FATAL_FAILURE(produce(0, 1));
  ASSERT_NO_FATAL_FAILURE(produce(0, 1));
  auto reply = kafka_->read<FetchResponse>(11);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->correlation_id, 42);
  auto response = wire::decode<FetchResponse>(reply->body, kafka::context<FetchResponse>(11), "");
  ASSERT_TRUE(response.ok());
  auto got = copy(*response);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(records_in(got[0].records).size(), 2u);
}

TEST_F(KafkaFetch, LongPollAnswersEmptyWhenMaxWaitPasses) {
  auto got = fetch(request(parts({{0, 0}}), 1 << 20, 1, /*max_wait_ms=*/50));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].error_code, errors::kNone);
  EXPECT_TRUE(got[0].records.empty());
  EXPECT_EQ(got[0].high_watermark, 0);
}

class KafkaFetchVerified : public KafkaFetch {
 protected:
  void SetUp() override { start({"--verify-reads", "true"}); }
};

TEST_F(KafkaFetchVerified, ADamagedPartitionIsAStorageError) {
  ASSERT_NO_FATAL_FAILURE(produce(0, 1));
  const auto log = broker_->data_dir() / "topics" / "t" / "0" / "00000000000000000000.log";
  const auto size = std::filesystem::file_size(log);
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size - 2));
    const char c = static_cast<char>(f.get());
    f.seekp(static_cast<std::streamoff>(size - 2));
    f.put(static_cast<char>(c ^ 0x02));
  }
  auto got = fetch(request(parts({{0, 0}, {1, 0}})));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].error_code, errors::kKafkaStorageError);
  EXPECT_TRUE(got[0].records.empty());
  EXPECT_EQ(got[1].error_code, errors::kNone);
}

}  // namespace
}  // namespace spillway::testing
