// The Kafka listener's steady-state produce and fetch paths allocate
// nothing per message, nor per request: the broker's
// spillway_heap_allocations_total grows by a small constant over a
// workload of Kafka Produce (acks 1, -1 and 0, plain and flexible versions)
// and Fetch requests, and by no more when the workload doubles. The model
// is broker_allocations_test.cc, for the native protocol.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "acl_files.h"
#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_wire_client.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/fetch.h"
#include "spillway/common/kafka/produce.h"
#include "steady_state_allocations.h"

namespace spillway::testing {
namespace {

using kafka::FetchRequest;
using kafka::FetchResponse;
using kafka::ProduceRequest;
using kafka::ProduceResponse;

class KafkaAllocations : public ::testing::Test {
 protected:
  virtual bool with_acls() const { return false; }

  void SetUp() override {
    BrokerProcess::Options options;
    options.args = {"--threads", "2", "--metrics-listen", "127.0.0.1:0"};
    if (with_acls()) {
      // Authorization on, the requests allowed by a prefixed rule among
      // others: the checks must not allocate either.
      acl_dir_ = std::make_unique<TempDir>();
      ASSERT_NO_FATAL_FAILURE(write_acls(acl_dir_->path(), allocation_test_acls()));
      options.default_data_dir = false;
      options.args.insert(options.args.end(), {"--data-dir", acl_dir_->path().string(),
                                               "--authorization-enabled", "true"});
    }
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    if (with_acls()) {
      ASSERT_NE(broker_->log().find("authorization on: 104 ACL(s)"), std::string::npos);
    }
    port_ = metrics_port(*broker_);
    ASSERT_NE(port_, 0) << broker_->log();
    WireClient native(broker_->port());
    ASSERT_EQ(native.create_topic("alloc", 2), ErrorCode::kOk);
    ASSERT_EQ(native.create_topic("alloc-durable", 1, "durable"), ErrorCode::kOk);
    client_ = std::make_unique<KafkaWireClient>(broker_->kafka_port());
    std::vector<std::pair<std::optional<std::string>, std::string>> records;
    for (int i = 0; i < kPerBatch; ++i) {
      records.push_back(
          {"key-" + std::to_string(i), std::string(100, static_cast<char>('a' + i % 26))});
    }
    batch_ = make_batch(records);
  }

  void produce(const char* topic, int32_t partition, int16_t acks, int16_t version) {
    ProduceRequest::Partition part;
    part.index = partition;
    part.records.bytes = batch_;
    const std::vector<ProduceRequest::Partition> parts = {part};
    const std::vector<ProduceRequest::Topic> topics = {{.name = topic, .partition_data = parts}};
    ProduceRequest r;
    r.acks = acks;
    r.timeout_ms = 5000;
    r.topic_data = topics;
    if (acks == 0) {
      ASSERT_TRUE(client_->send(r, version, 0));
      return;
    }
    KafkaWireClient::Reply reply;
    auto response = client_->call<ProduceResponse>(r, version, &reply);
    ASSERT_EQ(response.responses.size(), 1);
    ASSERT_EQ((*(*response.responses.begin()).partition_responses.begin()).error_code,
              kafka::errors::kNone);
  }

  // Fetches `partition` of `topic` from `*next` to the high watermark.
  // With `max_wait_ms` > 0 the last fetch, at the end, long-polls until its
  // timer ends it.
  void fetch_to_end(const char* topic, int32_t partition, int64_t* next, int16_t version,
                    int32_t max_wait_ms = 0) {
    for (;;) {
      FetchRequest::Partition part;
      part.partition = partition;
      part.fetch_offset = *next;
      part.partition_max_bytes = 256 << 10;
      const std::vector<FetchRequest::Partition> parts = {part};
      const std::vector<FetchRequest::Topic> topics = {{.topic = topic, .partitions = parts}};
      FetchRequest r;
      r.max_wait_ms = max_wait_ms;
      r.min_bytes = 1;
      r.max_bytes = 1 << 20;
      r.topics = topics;
      KafkaWireClient::Reply reply;
      auto response = client_->call<FetchResponse>(r, version, &reply);
      ASSERT_EQ(response.responses.size(), 1);
      const FetchResponse::Partition p = *(*response.responses.begin()).partitions.begin();
      ASSERT_EQ(p.error_code, kafka::errors::kNone);
      std::span<const std::byte> bytes = p.records;
      if (bytes.empty()) return;
      auto records = records_in(bytes, *next);
      ASSERT_FALSE(records.empty());
      *next = records.back().offset + 1;
    }
  }

  // Produces `messages` messages in batches (acks 1 in v7 and flexible v9,
  // acks -1 to a durable topic, acks 0) and fetches every partition back to
  // the end (v11 and flexible v12), the last fetch of the durable topic
  // long-polling until its max_wait_ms passes.
  void workload(int messages) {
    const int batches = messages / kPerBatch;
    for (int i = 0; i < batches; ++i) {
      switch (i % 4) {
        case 0:
          ASSERT_NO_FATAL_FAILURE(produce("alloc", i % 2, 1, 7));
          break;
        case 1:
          ASSERT_NO_FATAL_FAILURE(produce("alloc", i % 2, 1, 9));
          break;
        case 2:
          ASSERT_NO_FATAL_FAILURE(produce("alloc-durable", 0, -1, 8));
          break;
        default:
          ASSERT_NO_FATAL_FAILURE(produce("alloc", i % 2, 0, 7));
          break;
      }
    }
    int16_t version = 11;
    for (auto [topic, partition] :
         {std::pair<const char*, int>{"alloc", 0}, {"alloc", 1}, {"alloc-durable", 0}}) {
      int64_t& next = fetched_[std::string(topic) + std::to_string(partition)];
      const int32_t max_wait_ms = std::string_view(topic) == "alloc-durable" ? 5 : 0;
      ASSERT_NO_FATAL_FAILURE(fetch_to_end(topic, partition, &next, version, max_wait_ms));
      version = version == 11 ? 12 : 11;
    }
  }

  int64_t allocations() { return metric(scrape(port_), "spillway_heap_allocations_total"); }

  static constexpr int kPerBatch = 100;
  std::unique_ptr<TempDir> acl_dir_;  // the data directory, with_acls() only
  std::unique_ptr<BrokerProcess> broker_;
  uint16_t port_ = 0;
  std::unique_ptr<KafkaWireClient> client_;
  std::vector<std::byte> batch_;
  std::map<std::string, int64_t> fetched_;
};

TEST_F(KafkaAllocations, SteadyStateProduceAndFetchDoNotAllocatePerMessage) {
  expect_no_allocations_per_message([this](int n) { workload(n); },
                                    [this] { return allocations(); }, "Kafka", 8'000);
  // The fetches of whole segments' worth of batches left the records in
  // their files (plaintext: sent with sendfile), so that path is the one
  // proven above; the copy path is proven by the TLS allocation tests.
  EXPECT_GT(metric(scrape(port_), "spillway_fetch_sendfile_bytes_total"), 0);
}

// The same with authorization on and the workload allowed by ACLs.
class KafkaAllocationsWithAcls : public KafkaAllocations {
 protected:
  bool with_acls() const override { return true; }
};

TEST_F(KafkaAllocationsWithAcls, SteadyStateProduceAndFetchDoNotAllocatePerMessage) {
  expect_no_allocations_per_message([this](int n) { workload(n); },
                                    [this] { return allocations(); }, "Kafka with ACLs", 8'000);
}

}  // namespace
}  // namespace spillway::testing
