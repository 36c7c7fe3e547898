// A GoogleTest that produces and consumes through spillway::Producer and
// spillway::Consumer against a broker inside the test process
// (spillway::testing::EmbeddedBroker). docs/testing-with-spillway.md shows
// this file; copy it as the start of your own tests.
#include <gtest/gtest.h>
#include <spillway/consumer.h>
#include <spillway/producer.h>
#include <spillway/testing/embedded_broker.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace {

using spillway::testing::EmbeddedBroker;

// One broker per test: each starts in milliseconds, on its own ports and in
// its own temporary directory, so tests share nothing.
class OrdersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = EmbeddedBroker::start({.topics = {{.name = "orders", .partitions = 3}}});
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(broker).value();
  }

  std::unique_ptr<EmbeddedBroker> broker_;
};

TEST_F(OrdersTest, WhatIsProducedIsConsumedInOrderPerKey) {
  spillway::ProducerOptions producer_options;
  producer_options.bootstrap = broker_->native_address();
  auto producer = spillway::Producer::create(producer_options);
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();
  for (int i = 0; i < 10; ++i) {
    (*producer)->send("orders", "customer-" + std::to_string(i % 2), "order-" + std::to_string(i));
  }
  ASSERT_TRUE((*producer)->close().ok());  // waits for every acknowledgement

  spillway::ConsumerOptions consumer_options;
  consumer_options.bootstrap = broker_->native_address();
  auto consumer = spillway::Consumer::create(consumer_options);
  ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
  ASSERT_TRUE((*consumer)->assign("orders").ok());  // every partition, from the start
  std::map<std::string, std::string> orders_of;     // key -> its values in order
  int seen = 0;
  // The bound turns a lost record into a failure instead of a hang.
  for (int polls = 0; seen < 10 && polls < 100; ++polls) {
    auto records = (*consumer)->poll(std::chrono::milliseconds(100));
    ASSERT_TRUE(records.ok()) << records.status().to_string();
    for (const spillway::ConsumerRecord& record : *records) {
      orders_of[std::string(record.key_string())] += std::string(record.value_string()) + " ";
      ++seen;
    }
  }
  EXPECT_EQ(seen, 10);
  EXPECT_EQ(orders_of["customer-0"], "order-0 order-2 order-4 order-6 order-8 ");
  EXPECT_EQ(orders_of["customer-1"], "order-1 order-3 order-5 order-7 order-9 ");
}

}  // namespace
