// spillway::Producer against the in-memory FakeBroker: partitioning
// (murmur2 for keys, sticky for keyless), order within a partition across
// retries and lost connections, error delivery, close() completing every
// record.
#include "spillway/producer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "broker_process.h"
#include "fake_broker.h"
#include "spillway/common/key_partitioner.h"

namespace spillway {
namespace {

using testing::FakeBroker;

std::span<const std::byte> bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// Collects every delivery.
struct Deliveries {
  struct One {
    Status status;
    RecordMetadata metadata;
    std::string topic;
  };
  std::mutex mu;
  std::vector<One> all;
  static void on(void* context, const Status& st, const RecordMetadata& m) {
    auto* d = static_cast<Deliveries*>(context);
    std::lock_guard lk(d->mu);
    d->all.push_back({st, m, std::string(m.topic)});
  }
  DeliveryCallback cb() { return {&Deliveries::on, this}; }
  size_t failures() {
    std::lock_guard lk(mu);
    size_t n = 0;
    for (const One& o : all) n += !o.status.ok();
    return n;
  }
};

ProducerOptions options_for(const FakeBroker& broker) {
  ProducerOptions o;
  o.bootstrap = broker.address();
  o.linger = std::chrono::milliseconds(2);
  o.retry_backoff = std::chrono::milliseconds(5);
  return o;
}

TEST(Producer, KeyedRecordsGoToTheMurmur2PartitionInSendOrder) {
  FakeBroker broker;
  broker.create_topic("t", 4);
  auto producer = Producer::create(options_for(broker));
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();
  Deliveries d;
  const int kKeys = 37, kPerKey = 40;
  for (int i = 0; i < kPerKey; ++i) {
    for (int k = 0; k < kKeys; ++k) {
      const std::string key = "key-" + std::to_string(k);
      const std::string value = key + "#" + std::to_string(i);
      (*producer)->send("t", bytes(key), bytes(value), {}, d.cb());
    }
  }
  ASSERT_TRUE((*producer)->flush().ok());
  ASSERT_EQ(d.all.size(), static_cast<size_t>(kKeys * kPerKey));
  EXPECT_EQ(d.failures(), 0u);
  for (const auto& one : d.all) {
    EXPECT_EQ(one.topic, "t");
    EXPECT_GE(one.metadata.offset, 0);
  }
  for (int p = 0; p < 4; ++p) {
    std::map<std::string, int> next;  // per key: next expected sequence
    for (const auto& [key, value] : broker.records("t", p)) {
      EXPECT_EQ(KeyPartitioner::partition(bytes(key), 4), p) << key;
      EXPECT_EQ(value, key + "#" + std::to_string(next[key]++));
    }
    for (const auto& [key, n] : next) EXPECT_EQ(n, kPerKey) << key;
  }
  EXPECT_TRUE((*producer)->close().ok());
}

TEST(Producer, OffsetsInCallbacksMatchTheStoredPositions) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  auto producer = Producer::create(options_for(broker));
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  for (int i = 0; i < 500; ++i) {
    const std::string v = "v" + std::to_string(i);
    (*producer)->send("t", bytes("k" + std::to_string(i % 7)), bytes(v), {}, d.cb());
  }
  ASSERT_TRUE((*producer)->close().ok());
  ASSERT_EQ(d.all.size(), 500u);
  std::vector<std::vector<std::pair<std::string, std::string>>> stored = {broker.records("t", 0),
                                                                          broker.records("t", 1)};
  std::set<std::pair<int, int64_t>> seen;
  for (const auto& one : d.all) {
    ASSERT_TRUE(one.status.ok());
    const auto& part = stored[static_cast<size_t>(one.metadata.partition)];
    ASSERT_LT(static_cast<size_t>(one.metadata.offset), part.size());
    EXPECT_TRUE(seen.insert({one.metadata.partition, one.metadata.offset}).second);
  }
}

TEST(Producer, KeylessRecordsStickToOnePartitionPerBatch) {
  FakeBroker broker;
  broker.create_topic("t", 3);
  ProducerOptions o = options_for(broker);
  o.batch_bytes = 2'000;
  o.linger = std::chrono::milliseconds(1'000);  // batches close by size
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  const std::string value(100, 'x');
  for (int i = 0; i < 300; ++i) (*producer)->send("t", {}, bytes(value), {}, d.cb());
  ASSERT_TRUE((*producer)->flush().ok());
  ASSERT_EQ(d.all.size(), 300u);
  // Consecutive records share a partition in runs of a batch, and every
  // partition gets some.
  std::set<int32_t> partitions;
  int switches = 0;
  for (size_t i = 0; i < d.all.size(); ++i) {
    partitions.insert(d.all[i].metadata.partition);
    if (i > 0 && d.all[i].metadata.partition != d.all[i - 1].metadata.partition) ++switches;
  }
  EXPECT_EQ(partitions.size(), 3u);
  EXPECT_GT(switches, 3);
  EXPECT_LT(switches, 100);  // not round-robin per record
}

TEST(Producer, KeylessRecordsSentToAPartitionStayInIt) {
  FakeBroker broker;
  broker.create_topic("t", 3);
  ProducerOptions o = options_for(broker);
  o.batch_bytes = 300;  // batches close by size while the records are sent
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  for (int i = 0; i < 100; ++i) {
    (*producer)->send("t", {}, bytes(std::to_string(i)), {}, d.cb(), 2);
  }
  ASSERT_TRUE((*producer)->flush().ok());
  ASSERT_EQ(d.all.size(), 100u);
  for (const auto& one : d.all) EXPECT_EQ(one.metadata.partition, 2);
  EXPECT_EQ(broker.records("t", 2).size(), 100u);
}

TEST(Producer, RetriedBatchesAreNotOvertaken) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  ProducerOptions o = options_for(broker);
  o.max_in_flight = 5;
  o.batch_bytes = 500;  // many small batches, several in flight
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  for (int round = 0; round < 4; ++round) {
    broker.fail_next_produce_entries(3, ErrorCode::kShuttingDown);
    for (int i = 0; i < 200; ++i) {
      const std::string v = std::to_string(round * 200 + i);
      (*producer)->send("t", bytes("same-key"), bytes(v), {}, d.cb());
    }
  }
  ASSERT_TRUE((*producer)->flush().ok());
  EXPECT_EQ(d.failures(), 0u);
  const int32_t p = KeyPartitioner::partition(bytes(std::string("same-key")), 2);
  auto stored = broker.records("t", p);
  ASSERT_EQ(stored.size(), 800u);
  for (size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(stored[i].second, std::to_string(i));
}

// With idempotence several batches of a partition are in flight at once
// (the broker holds the first answer until the next request has arrived,
// so that they are). When the first fails
// retriably, the broker refuses those sent behind it (a gap in the
// producer's sequence) and they follow it again in send order: every
// record stored once, in order, and none reported failed.
TEST(Producer, WithIdempotenceBatchesInFlightBehindARetryFollowItInOrder) {
  FakeBroker broker;
  broker.hand_out_producer_ids();
  broker.create_topic("t", 1);
  ProducerOptions o = options_for(broker);
  o.max_in_flight = 5;
  o.batch_bytes = 500;  // many small batches
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  ASSERT_TRUE((*producer)->send("t", "k", "first", 0).get().ok());
  broker.hold_next_produce_until_pipelined();
  broker.fail_next_produce_entries(1, ErrorCode::kShuttingDown);
  for (int i = 0; i < 300; ++i) (*producer)->send("t", {}, bytes(std::to_string(i)), {}, d.cb());
  const Status flushed = (*producer)->flush();
  ASSERT_TRUE(flushed.ok()) << flushed.to_string();
  EXPECT_EQ(d.failures(), 0u);
  EXPECT_GT(broker.out_of_order_refusals(), 0) << "no batch was in flight behind the failed one";
  auto stored = broker.records("t", 0);
  ASSERT_EQ(stored.size(), 301u);
  for (size_t i = 1; i < stored.size(); ++i) EXPECT_EQ(stored[i].second, std::to_string(i - 1));
}

TEST(Producer, LostConnectionsAreRetriedInOrder) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  ProducerOptions o = options_for(broker);
  o.batch_bytes = 300;
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  (*producer)->send("t", {}, bytes(std::string("first")), {}, d.cb());
  ASSERT_TRUE((*producer)->flush().ok());
  broker.drop_next_produce_requests(2);
  for (int i = 0; i < 300; ++i) {
    (*producer)->send("t", {}, bytes(std::to_string(i)), {}, d.cb());
  }
  ASSERT_TRUE((*producer)->close().ok());
  EXPECT_EQ(d.failures(), 0u);
  auto stored = broker.records("t", 0);
  ASSERT_EQ(stored.size(), 301u);
  for (size_t i = 1; i < stored.size(); ++i) EXPECT_EQ(stored[i].second, std::to_string(i - 1));
}

TEST(Producer, NonRetriableErrorsReachEveryCallbackOfTheBatch) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  auto producer = Producer::create(options_for(broker));
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  broker.fail_next_produce_entries(1, ErrorCode::kCorruptMessage);
  for (int i = 0; i < 10; ++i) (*producer)->send("t", {}, bytes(std::string("x")), {}, d.cb());
  Status st = (*producer)->flush();
  EXPECT_EQ(st.code(), ErrorCode::kCorruptMessage);
  ASSERT_EQ(d.all.size(), 10u);
  for (const auto& one : d.all) EXPECT_EQ(one.status.code(), ErrorCode::kCorruptMessage);
  EXPECT_EQ((*producer)->close().code(), ErrorCode::kCorruptMessage);
}

// Issue 11, defect 4: once a batch of a partition has failed, nothing of
// that partition may be stored after it (a hole in the acknowledged
// sequence). `arm` makes the broker fail the next batch; 100 records are
// then sent to partition 0 in small batches (one in flight, a dozen queued
// behind it). Every one of them must fail, and so must a later send to the
// partition, while partition 1 carries on.
void expect_no_record_stored_after_a_failure(const std::function<void(FakeBroker&)>& arm,
                                             ErrorCode expected, int retries) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  ProducerOptions o = options_for(broker);
  o.batch_bytes = 300;
  o.retries = retries;
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  ASSERT_TRUE((*producer)->send("t", "k", "before", 0).get().ok());
  arm(broker);
  Deliveries d;
  for (int i = 0; i < 100; ++i) {
    (*producer)->send("t", {}, bytes("record-" + std::to_string(i)), {}, d.cb(), 0);
  }
  EXPECT_EQ((*producer)->flush().code(), expected);
  ASSERT_EQ(d.all.size(), 100u);
  EXPECT_EQ(d.failures(), 100u) << "records acknowledged after a failed one of their partition";
  for (const auto& one : d.all) {
    if (!one.status.ok()) {
      EXPECT_EQ(one.status.code(), expected) << one.status.to_string();
    }
  }
  Result<RecordMetadata> later = (*producer)->send("t", "k", "later", 0).get();
  EXPECT_FALSE(later.ok()) << "partition 0 took a record after a failed one";
  const auto stored = broker.records("t", 0);
  ASSERT_EQ(stored.size(), 1u) << "records stored after the failed batch: a hole";
  EXPECT_EQ(stored[0].second, "before");
  Result<RecordMetadata> other = (*producer)->send("t", "k", "other", 1).get();
  EXPECT_TRUE(other.ok()) << other.status().to_string();
}

TEST(Producer, ABatchTheBrokerRejectedFailsEveryLaterRecordOfItsPartition) {
  expect_no_record_stored_after_a_failure(
      [](FakeBroker& b) { b.fail_next_produce_entries(1, ErrorCode::kCorruptMessage); },
      ErrorCode::kCorruptMessage, 10);
}

TEST(Producer, ABatchOutOfRetriesFailsEveryLaterRecordOfItsPartition) {
  // No retries: the connection lost under the first batch fails it.
  expect_no_record_stored_after_a_failure([](FakeBroker& b) { b.drop_next_produce_requests(1); },
                                          ErrorCode::kNotConnected, 0);
}

TEST(Producer, AFencedPartitionIsReportedUntilTheApplicationResetsIt) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  auto producer = Producer::create(options_for(broker));
  ASSERT_TRUE(producer.ok());
  ASSERT_TRUE((*producer)->send("t", "k", "0", 0).get().ok());
  EXPECT_TRUE((*producer)->fenced_partitions().empty());
  broker.fail_next_produce_entries(1, ErrorCode::kCorruptMessage);
  EXPECT_EQ((*producer)->send("t", "k", "1", 0).get().status().code(), ErrorCode::kCorruptMessage);
  std::vector<FencedPartition> fenced = (*producer)->fenced_partitions();
  ASSERT_EQ(fenced.size(), 1u);
  EXPECT_EQ(fenced[0].topic, "t");
  EXPECT_EQ(fenced[0].partition, 0);
  EXPECT_EQ(fenced[0].cause.code(), ErrorCode::kCorruptMessage);
  EXPECT_FALSE((*producer)->send("t", "k", "2", 0).get().ok());

  // The application re-sends the failed records, in order, after a reset.
  ASSERT_TRUE((*producer)->reset_partition("t", 0).ok());
  EXPECT_TRUE((*producer)->fenced_partitions().empty());
  for (const char* v : {"1", "2", "3"}) {
    Result<RecordMetadata> r = (*producer)->send("t", "k", v, 0).get();
    EXPECT_TRUE(r.ok()) << r.status().to_string();
  }
  const auto stored = broker.records("t", 0);
  ASSERT_EQ(stored.size(), 4u);
  for (size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(stored[i].second, std::to_string(i));

  EXPECT_TRUE((*producer)->reset_partition("t", 1).ok());  // not fenced: nothing to do
  EXPECT_EQ((*producer)->reset_partition("t", 2).code(), ErrorCode::kUnknownPartition);
  EXPECT_EQ((*producer)->reset_partition("other", 0).code(), ErrorCode::kUnknownTopic);
}

// `spillway produce` over two partitions: partition 0's batch is rejected.
// The CLI names the first line not acknowledged (the first line of
// partition 0), says the lines before it are stored, and counts the later
// lines partition 1 stored all the same (a resume sends them again).
TEST(Producer, CliProduceNamesTheFirstLineNotAcknowledged) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  std::string key_of[2];  // a key for each partition
  for (int i = 0; key_of[0].empty() || key_of[1].empty(); ++i) {
    const std::string key = "key" + std::to_string(i);
    key_of[KeyPartitioner::partition(bytes(key), 2)] = key;
  }
  // Lines 1-3 go to partition 1, then 4-20 alternate between 0 and 1.
  std::string lines;
  for (int line = 1; line <= 20; ++line) {
    const int partition = line <= 3 ? 1 : (line % 2 == 0 ? 0 : 1);
    lines += key_of[partition] + ":" + std::to_string(line) + "\n";
  }
  testing::TempDir dir;
  const std::string input = (dir.path() / "input").string();
  std::ofstream(input) << lines;
  broker.fail_next_produce_entries(1, ErrorCode::kCorruptMessage, 0);
  Result<testing::ProcessExit> r = testing::run_process(
      testing::cli_binary(),
      {"produce", "t", "--broker", broker.address(), "--file", input, "--key-separator", ":"});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->exit_code, 1) << r->output;
  for (const char* said :
       {"stopped at line 4, the first not acknowledged: corrupt_message", "lines 1 to 3 are stored",
        "tail -n +4 ", "8 later lines (other partitions) were stored too"}) {
    EXPECT_NE(r->output.find(said), std::string::npos) << said << " in:\n" << r->output;
  }
  EXPECT_TRUE(broker.records("t", 0).empty());
  EXPECT_EQ(broker.records("t", 1).size(), 11u);
}

TEST(Producer, UnknownTopicFailsTheSend) {
  FakeBroker broker;
  auto producer = Producer::create(options_for(broker));
  ASSERT_TRUE(producer.ok());
  auto f = (*producer)->send("nope", "k", "v");
  Result<RecordMetadata> r = f.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnknownTopic);
  EXPECT_NE(r.status().message().find("nope"), std::string_view::npos);
}

// A topic name longer than a protocol string (Kafka's STRING: at most 32767
// bytes) can be neither asked about nor produced to: the send fails at once
// instead of waiting its delivery timeout for metadata that cannot come.
TEST(Producer, ATopicNameTooLongForTheProtocolFailsTheSendAtOnce) {
  FakeBroker broker;
  ProducerOptions o = options_for(broker);
  o.delivery_timeout = std::chrono::seconds(2);
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  auto f = (*producer)->send(std::string(32'768, 't'), "k", "v");
  ASSERT_EQ(f.wait_for(std::chrono::seconds(0)), std::future_status::ready)
      << "the callback did not run inside send()";
  Result<RecordMetadata> r = f.get();
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << r.status().to_string();
  EXPECT_NE(r.status().message().find("32767"), std::string_view::npos) << r.status().message();
}

TEST(Producer, ExplicitPartitionOutOfRangeFails) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  auto producer = Producer::create(options_for(broker));
  ASSERT_TRUE(producer.ok());
  EXPECT_EQ((*producer)->send("t", "k", "v", 2).get().status().code(),
            ErrorCode::kUnknownPartition);
  Result<RecordMetadata> ok = (*producer)->send("t", "k", "v", 1).get();
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ(ok->partition, 1);
  EXPECT_EQ(ok->offset, 0);
}

TEST(Producer, CloseFailsWhatCannotBeDelivered) {
  std::string address;
  {
    FakeBroker gone;  // a port nothing listens on once it is destroyed
    address = gone.address();
  }
  ProducerOptions o;
  o.bootstrap = address;
  o.delivery_timeout = std::chrono::milliseconds(300);
  o.retry_backoff = std::chrono::milliseconds(20);
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  for (int i = 0; i < 3; ++i) (*producer)->send("t", {}, bytes(std::string("x")), {}, d.cb());
  Status st = (*producer)->close();
  EXPECT_FALSE(st.ok());
  ASSERT_EQ(d.all.size(), 3u);
  for (const auto& one : d.all) {
    EXPECT_FALSE(one.status.ok());
    EXPECT_NE(one.status.message().find("cannot connect"), std::string_view::npos)
        << one.status.to_string();
  }
  // After close, sends fail at once.
  EXPECT_EQ((*producer)->send("t", "k", "v").get().status().code(), ErrorCode::kShuttingDown);
}

TEST(Producer, ABufferSmallerThanTheLoadMakesSendWaitNotFail) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  ProducerOptions o = options_for(broker);
  o.buffer_bytes = 4'096;
  o.batch_bytes = 1'024;
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  Deliveries d;
  const std::string value(200, 'x');
  for (int i = 0; i < 2'000; ++i) (*producer)->send("t", {}, bytes(value), {}, d.cb());
  ASSERT_TRUE((*producer)->close().ok());
  EXPECT_EQ(d.all.size(), 2'000u);
  EXPECT_EQ(d.failures(), 0u);
  EXPECT_EQ(broker.records("t", 0).size() + broker.records("t", 1).size(), 2'000u);
}

TEST(Producer, ReconnectsAfterTheBrokerClosedAnIdleConnection) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  auto producer = Producer::create(options_for(broker));
  ASSERT_TRUE(producer.ok());
  ASSERT_TRUE((*producer)->send("t", "k", "before").get().ok());
  // The next send may find the dead connection first (its request then
  // fails and is retried on a fresh one) or a fresh one: either way it lands.
  broker.drop_connections();
  Result<RecordMetadata> after = (*producer)->send("t", "k", "after").get();
  ASSERT_TRUE(after.ok()) << after.status().to_string();
  EXPECT_EQ(after->offset, 1);
}

TEST(Producer, RejectsBadOptions) {
  ProducerOptions o;
  o.bootstrap = "no-port";
  EXPECT_EQ(Producer::create(o).status().code(), ErrorCode::kInvalidArgument);
  o.bootstrap = "127.0.0.1:1";
  o.max_in_flight = 0;
  EXPECT_EQ(Producer::create(o).status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace spillway
