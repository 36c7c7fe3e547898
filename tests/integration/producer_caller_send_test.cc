// Sending from the caller's thread (client/src/producer_sender.h): with
// linger 0 a record that finds its connection ready goes out from the
// thread that called send(), not after the producer's I/O thread woke up.
// Against the real broker.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "spillway/admin.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

std::span<const std::byte> bytes(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

class ProducerCallerSend : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = BrokerProcess::start();
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(broker).value();
  }
  void create(const std::string& topic, int32_t partitions) {
    auto admin = Admin::connect(broker_->address());
    ASSERT_TRUE(admin.ok());
    TopicOptions o;
    o.partitions = partitions;
    ASSERT_TRUE(admin->create_topic(topic, o).ok());
  }
  ProducerOptions linger_zero() const {
    ProducerOptions o;
    o.bootstrap = broker_->address();
    o.linger = std::chrono::milliseconds(0);
    return o;
  }
  // Reads `topic` from the start until `want` records arrived or `limit`
  // passed (a bound on the wait, not a measured time).
  std::vector<std::string> read(const std::string& topic, size_t want, std::chrono::seconds limit) {
    ConsumerOptions o;
    o.bootstrap = broker_->address();
    auto consumer = Consumer::create(o);
    EXPECT_TRUE(consumer.ok());
    std::vector<std::string> values;
    if (!consumer.ok() || !(*consumer)->assign(topic).ok()) return values;
    const auto until = std::chrono::steady_clock::now() + limit;
    while (values.size() < want && std::chrono::steady_clock::now() < until) {
      Result<ConsumerRecords> r = (*consumer)->poll(std::chrono::milliseconds(200));
      if (!r.ok()) break;
      for (const ConsumerRecord& rec : *r) {
        values.emplace_back(reinterpret_cast<const char*>(rec.value.data()), rec.value.size());
      }
    }
    return values;
  }

  std::unique_ptr<BrokerProcess> broker_;
};

struct Held {
  std::atomic<bool> entered{false};
  std::atomic<bool> release{false};
  std::atomic<int> acked{0};
};

// Record A's callback holds the I/O thread; record B, sent meanwhile, must
// still reach the broker: the calling thread sends it.
void hold_io_thread(void* context, const Status& st, const RecordMetadata&) {
  auto* held = static_cast<Held*>(context);
  if (st.ok()) held->acked.fetch_add(1);
  held->entered = true;
  held->entered.notify_all();
  held->release.wait(false);
}

void count_acked(void* context, const Status& st, const RecordMetadata&) {
  if (st.ok()) static_cast<Held*>(context)->acked.fetch_add(1);
}

TEST_F(ProducerCallerSend, ARecordIsSentWhileTheIoThreadIsBusy) {
  create("caller", 1);
  auto producer = Producer::create(linger_zero());
  ASSERT_TRUE(producer.ok());
  Held held;
  (*producer)->send("caller", {}, bytes("A"), {}, {&hold_io_thread, &held});
  held.entered.wait(false);
  // The I/O thread sits in A's callback until released.
  (*producer)->send("caller", {}, bytes("B"), {}, {&count_acked, &held});
  const std::vector<std::string> values = read("caller", 2, std::chrono::seconds(10));
  const bool io_thread_still_held = !held.release.load();
  held.release = true;
  held.release.notify_all();
  ASSERT_TRUE((*producer)->flush().ok());
  EXPECT_TRUE(io_thread_still_held);
  EXPECT_EQ(values, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(held.acked.load(), 2);
  EXPECT_TRUE((*producer)->close().ok());
}

// Several threads share one linger-0 producer: callers and the I/O thread
// send in turn; every record is acknowledged once and each key's records
// are stored in send order.
TEST_F(ProducerCallerSend, ThreadsSharingAProducerKeepEachKeysOrder) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5'000;
  create("shared", 3);
  auto producer = Producer::create(linger_zero());
  ASSERT_TRUE(producer.ok());
  Held counts;
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      const std::string key = "key-" + std::to_string(th);
      for (int i = 0; i < kPerThread; ++i) {
        const std::string value = std::to_string(th) + ":" + std::to_string(i);
        (*producer)->send("shared", bytes(key), bytes(value), {}, {&count_acked, &counts});
      }
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_TRUE((*producer)->flush().ok());
  EXPECT_EQ(counts.acked.load(), kThreads * kPerThread);
  const std::vector<std::string> values =
      read("shared", kThreads * kPerThread, std::chrono::seconds(60));
  ASSERT_EQ(values.size(), static_cast<size_t>(kThreads * kPerThread));
  std::map<int, int> next;  // per thread (= per key): the next index expected
  for (const std::string& v : values) {
    const size_t colon = v.find(':');
    ASSERT_NE(colon, std::string::npos) << v;
    const int th = std::stoi(v.substr(0, colon));
    const int i = std::stoi(v.substr(colon + 1));
    EXPECT_EQ(i, next[th]) << "thread " << th << " out of order or duplicated";
    next[th] = i + 1;
  }
  for (int th = 0; th < kThreads; ++th) EXPECT_EQ(next[th], kPerThread);
  EXPECT_TRUE((*producer)->close().ok());
}

}  // namespace
}  // namespace spillway::testing
