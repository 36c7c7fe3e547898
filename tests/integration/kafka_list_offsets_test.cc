// Kafka ListOffsets against the real broker, over the raw Kafka wire:
// earliest, latest, and by timestamp (inside plain and zstd batches, past
// the end, and over a log longer than one scan step), in every served
// version.
#include <gtest/gtest.h>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_wire_client.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/list_offsets.h"

namespace spillway::testing {
namespace {

namespace errors = kafka::errors;
using kafka::ListOffsetsRequest;
using kafka::ListOffsetsResponse;

struct Listed {
  int32_t partition;
  int16_t error_code;
  int64_t timestamp;
  int64_t offset;
  int32_t leader_epoch;
};

// `count` records with timestamps first, first + 10, ...
std::vector<std::byte> batch_at(int64_t first, int count, size_t value_bytes = 8,
                                batch::Compression compression = batch::Compression::kNone) {
  std::array<std::byte, 256> scratch;
  WriteBuffer buf(scratch);
  batch::BatchBuilder builder;
  batch::BuilderOptions options;
  options.compression = compression;
  options.base_timestamp = first;
  EXPECT_TRUE(builder.start(buf, options).ok());
  const std::string value(value_bytes, 'v');
  for (int i = 0; i < count; ++i) {
    batch::RecordInput r;
    r.timestamp = first + 10 * i;
    r.key_is_null = true;
    r.value = bytes_of(value);
    EXPECT_TRUE(builder.append(r).ok());
  }
  EXPECT_TRUE(builder.finish().ok());
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

class KafkaListOffsets : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = BrokerProcess::start();
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    native_ = std::make_unique<WireClient>(broker_->port());
    ASSERT_EQ(native_->create_topic("t", 2), ErrorCode::kOk);
    kafka_ = std::make_unique<KafkaWireClient>(broker_->kafka_port());
  }

  void produce(int32_t partition, const std::vector<std::byte>& batch) {
    auto r = native_->produce("t", partition, batch);
    ASSERT_EQ(r.size(), 1u);
    ASSERT_EQ(r[0].code, ErrorCode::kOk) << r[0].message;
  }

  std::vector<Listed> list(const std::vector<std::pair<int32_t, int64_t>>& queries,
                           int16_t version) {
    std::vector<ListOffsetsRequest::Partition> partitions;
    for (auto [partition, timestamp] : queries) {
      ListOffsetsRequest::Partition p;
      p.partition_index = partition;
      p.timestamp = timestamp;
      partitions.push_back(p);
    }
    const std::vector<ListOffsetsRequest::Topic> topics = {{.name = "t", .partitions = partitions}};
    ListOffsetsRequest request;
    request.isolation_level = 1;
    request.topics = topics;
    KafkaWireClient::Reply reply;
    auto response = kafka_->call<ListOffsetsResponse>(request, version, &reply);
    std::vector<Listed> out;
    for (const ListOffsetsResponse::Topic& t : response.topics) {
      EXPECT_EQ(t.name, "t");
      for (const ListOffsetsResponse::Partition& p : t.partitions) {
        out.push_back({p.partition_index, p.error_code, p.timestamp, p.offset, p.leader_epoch});
      }
    }
    return out;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<WireClient> native_;
  std::unique_ptr<KafkaWireClient> kafka_;
};

TEST_F(KafkaListOffsets, EarliestLatestAndByTimestampInEveryServedVersion) {
  ASSERT_NO_FATAL_FAILURE(produce(0, batch_at(1000, 3)));  // offsets 0-2
  ASSERT_NO_FATAL_FAILURE(produce(0, batch_at(2000, 3)));  // 3-5
  ASSERT_NO_FATAL_FAILURE(
      produce(0, batch_at(3000, 3, 8, batch::Compression::kZstd)));  // 6-8, compressed
  for (int16_t version = 1; version <= 6; ++version) {
    SCOPED_TRACE("v" + std::to_string(version));
    auto got = list({{0, kafka::kListOffsetsEarliest},
                     {0, kafka::kListOffsetsLatest},
                     {0, 0},
                     {0, 1015},
                     {0, 1021},
                     {0, 3005},
                     {0, 5000},
                     {1, 0},
                     {7, kafka::kListOffsetsLatest}},
                    version);
    ASSERT_EQ(got.size(), 9u);
    for (size_t i = 0; i < 7; ++i) EXPECT_EQ(got[i].error_code, errors::kNone) << i;
    EXPECT_EQ(got[0].offset, 0);
    EXPECT_EQ(got[1].offset, 9);
    EXPECT_EQ(got[2].offset, 0);
    EXPECT_EQ(got[2].timestamp, 1000);
    EXPECT_EQ(got[3].offset, 2);
    EXPECT_EQ(got[3].timestamp, 1020);
    EXPECT_EQ(got[4].offset, 3);
    EXPECT_EQ(got[4].timestamp, 2000);
    EXPECT_EQ(got[5].offset, 7);  // inside the zstd batch, exactly
    EXPECT_EQ(got[5].timestamp, 3010);
    EXPECT_EQ(got[6].offset, -1);  // nothing that late
    EXPECT_EQ(got[6].timestamp, -1);
    EXPECT_EQ(got[7].error_code, errors::kNone);  // an empty partition
    EXPECT_EQ(got[7].offset, -1);
    EXPECT_EQ(got[8].error_code, errors::kUnknownTopicOrPartition);
    if (version >= 4) {
      EXPECT_EQ(got[0].leader_epoch, 0);
      EXPECT_EQ(got[5].leader_epoch, 0);
    }
  }
}

TEST_F(KafkaListOffsets, ATimestampLookupScansPastOneStep) {
  // 300 batches of ~5 KiB: several scan steps of 1 MiB.
  for (int i = 0; i < 300; ++i) {
    ASSERT_NO_FATAL_FAILURE(produce(0, batch_at(10'000 + 100 * i, 2, 5000)));
  }
  auto got = list({{0, 10'000 + 100 * 299 + 5}, {0, 10'000 + 100 * 150}}, 5);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].error_code, errors::kNone);
  EXPECT_EQ(got[0].offset, 2 * 299 + 1);
  EXPECT_EQ(got[0].timestamp, 10'000 + 100 * 299 + 10);
  EXPECT_EQ(got[1].offset, 2 * 150);
}

}  // namespace
}  // namespace spillway::testing
