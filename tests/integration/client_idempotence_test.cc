// The native Producer with enable_idempotence across a broker kill -9 and a
// restart on the same address and data directory: batches whose answers the
// crash swallowed are re-sent and recognised by the broker (from the batch
// headers in its log), so every record is stored exactly once, in send
// order, on every partition.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "spillway/admin.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

using std::chrono::milliseconds;

constexpr const char* kTopic = "exactly-once";
constexpr int32_t kPartitions = 2;
constexpr int kRecords = 20'000;

struct Acks {
  std::mutex mu;
  std::condition_variable cv;
  int ok = 0;
  int failed = 0;
  std::string first_error;
};

void on_delivery(void* ctx, const Status& st, const RecordMetadata&) {
  auto& acks = *static_cast<Acks*>(ctx);
  std::lock_guard lock(acks.mu);
  if (st.ok()) {
    ++acks.ok;
  } else if (acks.failed++ == 0) {
    acks.first_error = st.to_string();
  }
  acks.cv.notify_all();
}

// Every value of `partition`, in offset order.
std::vector<std::string> read_partition(const std::string& address, int32_t partition) {
  WireClient client(static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1))));
  std::vector<std::string> values;
  int64_t offset = 0;
  for (;;) {
    FetchResult f = client.fetch(kTopic, partition, offset);
    EXPECT_EQ(f.code, ErrorCode::kOk) << f.message;
    std::vector<Record> records = records_in(f.records, offset);
    if (f.code != ErrorCode::kOk || records.empty()) break;
    for (const Record& r : records) {
      EXPECT_EQ(r.offset, offset);
      offset = r.offset + 1;
      values.push_back(r.value);
    }
  }
  return values;
}

TEST(ClientIdempotenceTest, EveryRecordOnceAndInOrderAcrossABrokerKill9) {
  TempDir dir;
  const auto data = dir.path() / "data";
  auto broker = start_broker_on(data);
  ASSERT_NE(broker, nullptr);
  const std::string address = broker->address();
  {
    auto admin = Admin::connect(address);
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    TopicOptions topic;
    topic.partitions = kPartitions;
    ASSERT_TRUE(admin->create_topic(kTopic, topic).ok());
  }
  ProducerOptions options;
  options.bootstrap = address;
  options.enable_idempotence = true;
  options.linger = milliseconds(1);
  options.batch_bytes = 4u << 10;  // many small batches: many in flight at the kill
  options.retries = 1'000;
  options.retry_backoff = milliseconds(20);
  options.delivery_timeout = milliseconds(120'000);
  options.request_timeout = milliseconds(5'000);
  auto producer = Producer::create(options);
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();

  Acks acks;
  std::atomic<bool> stop_sending{false};
  std::thread sender([&] {
    for (int i = 0; i < kRecords && !stop_sending; ++i) {
      const std::string value = "record-" + std::to_string(i);
      (*producer)->send(kTopic, {}, std::as_bytes(std::span(value.data(), value.size())), {},
                        DeliveryCallback{&on_delivery, &acks}, i % kPartitions);
    }
  });
  {
    // The crash falls while records are flowing: a quarter acknowledged.
    std::unique_lock lock(acks.mu);
    const bool flowing = acks.cv.wait_for(
        lock, std::chrono::seconds(60), [&] { return acks.ok >= kRecords / 4 || acks.failed > 0; });
    ASSERT_TRUE(flowing);
    ASSERT_EQ(acks.failed, 0) << acks.first_error;
  }
  ASSERT_TRUE(broker->stop(SIGKILL).ok());
  broker = start_broker_on(data, {"--listen", address});
  ASSERT_NE(broker, nullptr);
  sender.join();
  EXPECT_TRUE((*producer)->flush().ok());
  EXPECT_TRUE((*producer)->close().ok());
  {
    std::lock_guard lock(acks.mu);
    EXPECT_EQ(acks.failed, 0) << acks.first_error;
    EXPECT_EQ(acks.ok, kRecords);
  }
  for (int32_t p = 0; p < kPartitions; ++p) {
    const std::vector<std::string> values = read_partition(address, p);
    ASSERT_EQ(values.size(), static_cast<size_t>(kRecords / kPartitions)) << "partition " << p;
    for (size_t k = 0; k < values.size(); ++k) {
      ASSERT_EQ(values[k], "record-" + std::to_string(static_cast<int>(k) * kPartitions + p))
          << "partition " << p << " offset " << k;
    }
  }
}

}  // namespace
}  // namespace spillway::testing
