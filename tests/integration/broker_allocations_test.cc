// The broker's steady-state produce and fetch paths allocate nothing per
// message: the spillway_heap_allocations_total metric (counting operator new
// in the broker, CMake option SPILLWAY_COUNT_ALLOCATIONS) grows by a small
// constant over a workload, and by no more when the workload doubles.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "acl_files.h"
#include "broker_process.h"
#include "broker_wire_client.h"
#include "steady_state_allocations.h"

namespace spillway::testing {
namespace {

class BrokerAllocations : public ::testing::Test {
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
    client_ = std::make_unique<WireClient>(broker_->port());
    ASSERT_EQ(client_->create_topic("alloc", 2), ErrorCode::kOk);
    ASSERT_EQ(client_->create_topic("alloc-durable", 1, "durable"), ErrorCode::kOk);
    std::vector<std::pair<std::optional<std::string>, std::string>> records;
    for (int i = 0; i < kPerBatch; ++i) {
      records.push_back(
          {"key-" + std::to_string(i), std::string(100, static_cast<char>('a' + i % 26))});
    }
    batch_ = make_batch(records);
  }

  // Produces `messages` messages in batches (explicit partitions, routed by
  // key, and durable) and fetches every partition back to the end.
  void workload(int messages) {
    const int batches = messages / kPerBatch;
    for (int i = 0; i < batches; ++i) {
      std::vector<ProduceResult> r;
      switch (i % 3) {
        case 0:
          r = client_->produce("alloc", i % 2, batch_);
          break;
        case 1:
          r = client_->produce("alloc", messages::kRouteByKey, batch_);
          break;
        default:
          r = client_->produce("alloc-durable", 0, batch_, messages::Acks::kDurable);
          break;
      }
      ASSERT_FALSE(r.empty());
      for (const auto& p : r) ASSERT_EQ(p.code, ErrorCode::kOk) << p.message;
    }
    for (auto [topic, partition] :
         {std::pair<const char*, int>{"alloc", 0}, {"alloc", 1}, {"alloc-durable", 0}}) {
      int64_t& next = fetched_[std::string(topic) + std::to_string(partition)];
      for (;;) {
        FetchResult f = client_->fetch(topic, partition, next, 0, 256 << 10);
        ASSERT_EQ(f.code, ErrorCode::kOk) << f.message;
        if (f.records.empty()) break;
        auto records = records_in(f.records, next);
        ASSERT_FALSE(records.empty());
        next = records.back().offset + 1;
      }
    }
  }

  int64_t allocations() { return metric(scrape(port_), "spillway_heap_allocations_total"); }

  static constexpr int kPerBatch = 100;
  std::unique_ptr<TempDir> acl_dir_;  // the data directory, with_acls() only
  std::unique_ptr<BrokerProcess> broker_;
  uint16_t port_ = 0;
  std::unique_ptr<WireClient> client_;
  std::vector<std::byte> batch_;
  std::map<std::string, int64_t> fetched_;
};

TEST_F(BrokerAllocations, SteadyStateProduceAndFetchDoNotAllocatePerMessage) {
  expect_no_allocations_per_message([this](int n) { workload(n); },
                                    [this] { return allocations(); }, "native", 6'000);
  // The fetches of whole segments' worth of batches left the records in
  // their files (plaintext: sent with sendfile), so that path is the one
  // proven above; the copy path is proven by the TLS allocation tests.
  EXPECT_GT(metric(scrape(port_), "spillway_fetch_sendfile_bytes_total"), 0);
}

// The same with authorization on and the workload allowed by ACLs.
class BrokerAllocationsWithAcls : public BrokerAllocations {
 protected:
  bool with_acls() const override { return true; }
};

TEST_F(BrokerAllocationsWithAcls, SteadyStateProduceAndFetchDoNotAllocatePerMessage) {
  expect_no_allocations_per_message([this](int n) { workload(n); },
                                    [this] { return allocations(); }, "Native with ACLs", 8'000);
}

}  // namespace
}  // namespace spillway::testing
