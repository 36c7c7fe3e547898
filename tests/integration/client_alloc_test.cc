// Zero heap allocations per message in the client's steady state, against
// the real broker (a separate process, so only the client is counted):
// Producer send -> delivery callback (every thread of the process: the
// caller's and the I/O thread), and Consumer poll, both over already-fetched
// records and across new fetches.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "alloc_counter.h"
#include "broker_process.h"
#include "spillway/admin.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

struct Counter {
  std::atomic<uint64_t> ok{0};
  std::atomic<uint64_t> failed{0};
};

void count(void* context, const Status& st, const RecordMetadata&) {
  auto* c = static_cast<Counter*>(context);
  (st.ok() ? c->ok : c->failed).fetch_add(1, std::memory_order_relaxed);
}

class ClientAlloc : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = BrokerProcess::start();
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(broker).value();
    auto admin = Admin::connect(broker_->address());
    ASSERT_TRUE(admin.ok());
    TopicOptions o;
    o.partitions = 4;
    ASSERT_TRUE(admin->create_topic("alloc", o).ok());
  }

  // Sends `n` keyed 100-byte messages and flushes; returns the process's
  // operator-new calls during it.
  uint64_t send_batch(Producer& producer, Counter& counter, int n) {
    char key[16];
    char value[100];
    std::memset(value, 'v', sizeof(value));
    AllocationScope scope;
    for (int i = 0; i < n; ++i) {
      const int len = std::snprintf(key, sizeof(key), "key-%d", i % 64);
      producer.send("alloc", std::as_bytes(std::span<const char>(key, static_cast<size_t>(len))),
                    std::as_bytes(std::span<const char>(value, sizeof(value))), {},
                    {&count, &counter});
    }
    EXPECT_TRUE(producer.flush().ok());
    return scope.process_allocations();
  }

  // Producer send -> delivery with `linger`: zero operator-new calls in
  // the measured rounds (`rounds` of `n` messages after a warm-up).
  void expect_no_allocations_per_message(std::chrono::milliseconds linger, int n);

  std::unique_ptr<BrokerProcess> broker_;
};

TEST_F(ClientAlloc, ProducerSendToDeliveryAllocatesNothingPerMessage) {
  expect_no_allocations_per_message(std::chrono::milliseconds(1), 80'000);
}

// Linger 0: records that find the connection ready are framed and sent by
// the calling thread (client/src/producer_sender.h).
TEST_F(ClientAlloc, ProducerSendWithLingerZeroAllocatesNothingPerMessage) {
  expect_no_allocations_per_message(std::chrono::milliseconds(0), 20'000);
}

void ClientAlloc::expect_no_allocations_per_message(std::chrono::milliseconds linger, int n) {
  ProducerOptions o;
  o.bootstrap = broker_->address();
  o.linger = linger;
  // A small buffer: the warm-up runs into it, so the pooled memory in use
  // has reached its peak before the measured rounds.
  o.buffer_bytes = 1u << 20;
  o.batch_bytes = 64u << 10;
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  Counter counter;
  // The global pool gets a stock well above what the producer can hold
  // (buffer_bytes, plus the request being framed), so the measured rounds
  // see per-message behaviour, not the pool growing to a new high-water
  // mark when thread caches happen to hold more idle segments than before.
  {
    std::vector<std::byte*> stock;
    const int per_class[BufferPool::kNumClasses] = {256, 128, 64, 16, 8};  // ~22 MiB
    for (std::size_t c = 0; c < BufferPool::kNumClasses; ++c) {
      for (int i = 0; i < per_class[c]; ++i) {
        stock.push_back(BufferPool::global().rent(BufferPool::kClassSizes[c]).data());
      }
    }
    for (std::byte* b : stock) BufferPool::global().give_back(b);
  }
  // Warm up: metadata, batch objects, pooled segments, response buffer.
  for (int i = 0; i < 2; ++i) send_batch(**producer, counter, n);
  const uint64_t small = send_batch(**producer, counter, n / 4);
  const uint64_t large = send_batch(**producer, counter, n);
  std::printf("operator new calls: %llu for %d messages, %llu for %d messages\n",
              static_cast<unsigned long long>(small), n / 4, static_cast<unsigned long long>(large),
              n);
  EXPECT_EQ(small, 0u);
  EXPECT_EQ(large, 0u);
  EXPECT_EQ(counter.failed.load(), 0u);
  EXPECT_EQ(counter.ok.load(), static_cast<uint64_t>(3 * n + n / 4));
  EXPECT_TRUE((*producer)->close().ok());
}

TEST_F(ClientAlloc, ConsumerPollAllocatesNothingPerMessage) {
  {
    ProducerOptions o;
    o.bootstrap = broker_->address();
    auto producer = Producer::create(o);
    ASSERT_TRUE(producer.ok());
    Counter counter;
    send_batch(**producer, counter, 100'000);
    ASSERT_EQ(counter.ok.load(), 100'000u);
  }
  ConsumerOptions o;
  o.bootstrap = broker_->address();
  o.max_poll_records = 500;
  o.partition_max_bytes = 256 << 10;
  auto consumer = Consumer::create(o);
  ASSERT_TRUE(consumer.ok());
  ASSERT_TRUE((*consumer)->assign("alloc").ok());
  uint64_t read = 0;
  // Warm up: positions resolved, buffers sized by the first fetches.
  while (read < 20'000) {
    Result<ConsumerRecords> r = (*consumer)->poll(std::chrono::seconds(5));
    ASSERT_TRUE(r.ok() && !r->empty());
    read += r->size();
  }
  // Steady state: polls served from fetched data and new fetches alike.
  AllocationScope scope;
  uint64_t steady = 0;
  while (read < 100'000) {
    Result<ConsumerRecords> r = (*consumer)->poll(std::chrono::seconds(5));
    ASSERT_TRUE(r.ok() && !r->empty());
    read += r->size();
    steady += r->size();
  }
  const uint64_t allocations = scope.thread_allocations();
  std::printf("operator new calls: %llu while polling %llu records\n",
              static_cast<unsigned long long>(allocations),
              static_cast<unsigned long long>(steady));
  EXPECT_EQ(allocations, 0u);
}

}  // namespace
}  // namespace spillway::testing
