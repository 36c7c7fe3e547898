// librdkafka with enable.idempotence=true against the Kafka listener across
// a broker kill -9 and a restart on the same ports and data directory: the
// requests whose answers the crash swallowed are retried with the same
// producer id and sequences, the broker (its producer state rebuilt from
// the log) recognises the ones it already stored, and every record is in
// the log exactly once, in order.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "broker_process.h"
#include "spillway/admin.h"
#include "spillway/consumer.h"

namespace spillway::testing {
namespace {

constexpr const char* kTopic = "idempotent";
constexpr int32_t kPartitions = 2;
constexpr int kRecords = 20'000;
constexpr auto kGuard = std::chrono::seconds(120);

struct Delivered {
  std::atomic<int> ok{0};
  std::atomic<int> failed{0};
  std::atomic<int> first_error{0};
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto& d = *static_cast<Delivered*>(opaque);
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    d.ok.fetch_add(1);
  } else if (d.failed.fetch_add(1) == 0) {
    d.first_error.store(m->err);
  }
}

std::unique_ptr<BrokerProcess> start(const std::filesystem::path& data,
                                     std::vector<std::string> args = {}) {
  BrokerProcess::Options options;
  options.default_data_dir = false;
  options.args = {"--threads", "2", "--data-dir", data.string()};
  options.args.insert(options.args.end(), args.begin(), args.end());
  auto broker = BrokerProcess::start(options);
  EXPECT_TRUE(broker.ok()) << broker.status().to_string();
  return broker.ok() ? std::move(*broker) : nullptr;
}

TEST(LibrdkafkaIdempotence, EveryRecordOnceAndInOrderAcrossABrokerKill9) {
  TempDir dir;
  const auto data = dir.path() / "data";
  auto broker = start(data);
  ASSERT_NE(broker, nullptr);
  const std::string native = broker->address();
  const std::string kafka = broker->kafka_address();
  {
    auto admin = Admin::connect(native);
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    TopicOptions topic;
    topic.partitions = kPartitions;
    ASSERT_TRUE(admin->create_topic(kTopic, topic).ok());
  }

  Delivered delivered;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", kafka},
           {"enable.idempotence", "true"},
           {"acks", "all"},
           {"linger.ms", "1"},
           {"batch.size", "4096"},  // many batches in flight when the broker dies
           {"message.timeout.ms", "120000"},
           {"retry.backoff.ms", "20"},
           {"reconnect.backoff.ms", "20"},
           {"reconnect.backoff.max.ms", "200"},
           {"log_level", "3"},
       }) {
    ASSERT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), error, sizeof error), RD_KAFKA_CONF_OK)
        << k << ": " << error;
  }
  rd_kafka_conf_set_dr_msg_cb(conf, &on_delivery);
  rd_kafka_conf_set_opaque(conf, &delivered);
  rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
  ASSERT_NE(producer, nullptr) << error;

  auto produce = [&](int i) {
    const std::string value = "record-" + std::to_string(i);
    for (;;) {
      const rd_kafka_resp_err_t err = rd_kafka_producev(
          producer, RD_KAFKA_V_TOPIC(kTopic), RD_KAFKA_V_PARTITION(i % kPartitions),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()), RD_KAFKA_V_END);
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) return err;
      rd_kafka_poll(producer, 10);
    }
  };
  int sent = 0;
  // A quarter acknowledged, with more in flight: then the crash.
  const auto deadline = std::chrono::steady_clock::now() + kGuard;
  while (delivered.ok.load() < kRecords / 4 && std::chrono::steady_clock::now() < deadline) {
    if (sent < kRecords / 2) {
      ASSERT_EQ(produce(sent++), RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    rd_kafka_poll(producer, 0);
  }
  ASSERT_EQ(delivered.failed.load(), 0)
      << rd_kafka_err2str(static_cast<rd_kafka_resp_err_t>(delivered.first_error.load()));
  ASSERT_TRUE(broker->stop(SIGKILL).ok());
  broker = start(data, {"--listen", native, "--kafka-listen", kafka});
  ASSERT_NE(broker, nullptr);
  while (sent < kRecords) ASSERT_EQ(produce(sent++), RD_KAFKA_RESP_ERR_NO_ERROR);
  while (rd_kafka_outq_len(producer) > 0 && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_flush(producer, 1000);
  }
  EXPECT_EQ(rd_kafka_outq_len(producer), 0);
  EXPECT_EQ(delivered.failed.load(), 0)
      << rd_kafka_err2str(static_cast<rd_kafka_resp_err_t>(delivered.first_error.load()));
  EXPECT_EQ(delivered.ok.load(), kRecords);
  rd_kafka_destroy(producer);

  // Read back with the native consumer: exactly the records sent, in order.
  ConsumerOptions o;
  o.bootstrap = native;
  o.fetch_max_wait = std::chrono::milliseconds(50);
  auto consumer = Consumer::create(o);
  ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
  ASSERT_TRUE((*consumer)->assign(kTopic).ok());
  std::vector<std::vector<std::string>> values(kPartitions);
  size_t total = 0;
  while (total < static_cast<size_t>(kRecords) && std::chrono::steady_clock::now() < deadline) {
    Result<ConsumerRecords> records = (*consumer)->poll(std::chrono::milliseconds(500));
    ASSERT_TRUE(records.ok()) << records.status().to_string();
    for (const ConsumerRecord& r : *records) {
      auto& partition = values[static_cast<size_t>(r.partition)];
      EXPECT_EQ(r.offset, static_cast<int64_t>(partition.size()));
      partition.emplace_back(r.value_string());
      ++total;
    }
  }
  // Nothing more: no duplicate past the expected count.
  Result<ConsumerRecords> more = (*consumer)->poll(std::chrono::milliseconds(200));
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->size(), 0u);
  for (int32_t p = 0; p < kPartitions; ++p) {
    const auto& got = values[static_cast<size_t>(p)];
    ASSERT_EQ(got.size(), static_cast<size_t>(kRecords / kPartitions)) << "partition " << p;
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k], "record-" + std::to_string(static_cast<int>(k) * kPartitions + p))
          << "partition " << p << " offset " << k;
    }
  }
}

}  // namespace
}  // namespace spillway::testing
