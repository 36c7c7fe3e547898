// spillway::Consumer against the in-memory FakeBroker: records with keys,
// headers and timestamps, zstd batches, positions inside a batch, commits
// and resuming from them, corrupt batches (also through `spillway consume`),
// and no allocation when polling fetched data.
#include "spillway/consumer.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "alloc_counter.h"
#include "broker_process.h"
#include "fake_broker.h"
#include "spillway/producer.h"

namespace spillway {
namespace {

using testing::FakeBroker;

std::span<const std::byte> bytes(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

void produce(const FakeBroker& broker, const std::string& topic, int from, int to,
             ProducerCompression compression = ProducerCompression::kNone, int partition = 0) {
  ProducerOptions o;
  o.bootstrap = broker.address();
  o.compression = compression;
  o.batch_bytes = 1'000;
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok());
  for (int i = from; i < to; ++i) {
    const std::string value = "value-" + std::to_string(i);
    const std::string hv = std::to_string(i * 2);
    const Header headers[] = {{"h", bytes(hv)}};
    (*producer)->send(topic, bytes("key-" + std::to_string(i)), bytes(value), headers, {},
                      partition);
  }
  ASSERT_TRUE((*producer)->close().ok());
}

std::unique_ptr<Consumer> consumer_for(const FakeBroker& broker, std::string group = "") {
  ConsumerOptions o;
  o.bootstrap = broker.address();
  o.group_id = std::move(group);
  o.fetch_max_wait = std::chrono::milliseconds(50);
  auto c = Consumer::create(o);
  EXPECT_TRUE(c.ok()) << c.status().to_string();
  return c.ok() ? std::move(c).value() : nullptr;
}

// Polls until `n` values were read (or a poll returns nothing).
std::vector<std::string> read_values(Consumer& c, size_t n) {
  std::vector<std::string> values;
  while (values.size() < n) {
    Result<ConsumerRecords> records = c.poll(std::chrono::milliseconds(200));
    EXPECT_TRUE(records.ok()) << records.status().to_string();
    if (!records.ok() || records->empty()) break;
    for (const ConsumerRecord& r : *records) values.emplace_back(r.value_string());
  }
  return values;
}

class ConsumerTest : public ::testing::TestWithParam<ProducerCompression> {};

TEST_P(ConsumerTest, ReadsRecordsWithKeysHeadersAndTimestamps) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  const auto before = std::chrono::system_clock::now();
  produce(broker, "t", 0, 300, GetParam());
  auto c = consumer_for(broker);
  ASSERT_TRUE(c->assign("t").ok());
  int64_t expected = 0;
  while (expected < 300) {
    Result<ConsumerRecords> records = c->poll(std::chrono::milliseconds(500));
    ASSERT_TRUE(records.ok()) << records.status().to_string();
    ASSERT_FALSE(records->empty());
    for (const ConsumerRecord& r : *records) {
      EXPECT_EQ(r.topic, "t");
      EXPECT_EQ(r.partition, 0);
      EXPECT_EQ(r.offset, expected);
      EXPECT_TRUE(r.has_key);
      EXPECT_EQ(r.key_string(), "key-" + std::to_string(expected));
      EXPECT_EQ(r.value_string(), "value-" + std::to_string(expected));
      EXPECT_GE(
          r.timestamp,
          std::chrono::duration_cast<std::chrono::milliseconds>(before.time_since_epoch()).count() -
              1);
      int headers = 0;
      EXPECT_TRUE(r.for_each_header([&](std::string_view k, std::span<const std::byte> v) {
                     EXPECT_EQ(k, "h");
                     EXPECT_EQ(std::string(reinterpret_cast<const char*>(v.data()), v.size()),
                               std::to_string(expected * 2));
                     ++headers;
                   }).ok());
      EXPECT_EQ(headers, 1);
      ++expected;
    }
  }
  EXPECT_EQ(*c->position("t", 0), 300);
  Result<ConsumerRecords> none = c->poll(std::chrono::milliseconds(20));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(ConsumerTest, SeekInsideABatchSkipsTheRecordsBelowIt) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  produce(broker, "t", 0, 100, GetParam());
  auto c = consumer_for(broker);
  ASSERT_TRUE(c->assign("t").ok());
  ASSERT_TRUE(c->seek("t", 0, 37).ok());
  std::vector<std::string> values = read_values(*c, 63);
  ASSERT_EQ(values.size(), 63u);
  EXPECT_EQ(values.front(), "value-37");
  EXPECT_EQ(values.back(), "value-99");
}

INSTANTIATE_TEST_SUITE_P(Codecs, ConsumerTest,
                         ::testing::Values(ProducerCompression::kNone, ProducerCompression::kZstd));

TEST(Consumer, ResumesFromTheCommittedOffset) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  produce(broker, "t", 0, 50, ProducerCompression::kNone, 0);
  produce(broker, "t", 0, 30, ProducerCompression::kNone, 1);
  {
    auto c = consumer_for(broker, "g");
    const int32_t p0[] = {0};
    ASSERT_TRUE(c->assign("t", p0).ok());
    EXPECT_EQ(*c->committed("t", 0), -1);
    ASSERT_EQ(read_values(*c, 50).size(), 50u);
    const TopicPartitionOffset at[] = {{"t", 0, 20}};
    ASSERT_TRUE(c->commit(at).ok());
    EXPECT_EQ(*c->committed("t", 0), 20);
  }
  auto c = consumer_for(broker, "g");
  ASSERT_TRUE(c->assign("t").ok());
  std::vector<std::string> values = read_values(*c, 60);
  ASSERT_EQ(values.size(), 60u);  // 30 left in partition 0, all 30 of partition 1
  ASSERT_TRUE(c->commit().ok());
  EXPECT_EQ(*c->committed("t", 0), 50);
  EXPECT_EQ(*c->committed("t", 1), 30);
}

TEST(Consumer, SeekToEndReadsOnlyNewRecords) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  produce(broker, "t", 0, 10);
  auto c = consumer_for(broker);
  ASSERT_TRUE(c->assign("t").ok());
  ASSERT_TRUE(c->seek_to_end("t", 0).ok());
  Result<ConsumerRecords> none = c->poll(std::chrono::milliseconds(20));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  produce(broker, "t", 10, 12);
  std::vector<std::string> values = read_values(*c, 2);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], "value-10");
}

TEST(Consumer, ReportsUnknownTopicsAndPartitions) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  auto c = consumer_for(broker);
  EXPECT_EQ(c->assign("nope").code(), ErrorCode::kUnknownTopic);
  const int32_t p[] = {3};
  EXPECT_EQ(c->assign("t", p).code(), ErrorCode::kUnknownPartition);
  EXPECT_EQ(c->poll(std::chrono::milliseconds(1)).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(c->commit().code(), ErrorCode::kInvalidArgument);  // no group
}

// subscribe() and assign() exclude each other; subscribe needs a group and
// topics. (Group membership itself runs against the real broker:
// tests/integration/consumer_group_test.cc.)
TEST(Consumer, SubscribeChecksItsArguments) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  auto no_group = consumer_for(broker);
  EXPECT_EQ(no_group->subscribe({"t"}).code(), ErrorCode::kInvalidArgument);
  auto assigned = consumer_for(broker, "g");
  ASSERT_TRUE(assigned->assign("t").ok());
  EXPECT_EQ(assigned->subscribe({"t"}).code(), ErrorCode::kInvalidArgument);
  auto subscribed = consumer_for(broker, "g");
  EXPECT_EQ(subscribed->subscribe({}).code(), ErrorCode::kInvalidArgument);
  ASSERT_TRUE(subscribed->subscribe({"t"}).ok());
  EXPECT_EQ(subscribed->subscribe({"t"}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(subscribed->assign("t").code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(subscribed->assignment().empty());  // joins in the first poll
  EXPECT_TRUE(subscribed->close().ok());          // not a member yet: nothing to leave

  ConsumerOptions o;
  o.bootstrap = broker.address();
  o.group_id = "g";
  o.heartbeat_interval = o.session_timeout;
  auto bad = Consumer::create(o);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ((*bad)->subscribe({"t"}).code(), ErrorCode::kInvalidArgument);
}

// Fetches go on a connection of their own, control calls on the control
// connection; a control call reads its answer into memory of its own, so
// the records a poll returned stay intact across a commit and a committed()
// lookup, while the Fetch sent ahead is out.
TEST(Consumer, FetchesHaveAConnectionOfTheirOwnAndCommitsKeepRecordsValid) {
  FakeBroker broker;
  broker.create_topic("t", 2);
  produce(broker, "t", 0, 40, ProducerCompression::kNone, 0);
  produce(broker, "t", 0, 40, ProducerCompression::kNone, 1);
  const int before = broker.connections_accepted();
  auto c = consumer_for(broker, "g");
  ASSERT_TRUE(c->assign("t").ok());
  Result<ConsumerRecords> records = c->poll(std::chrono::milliseconds(500));
  ASSERT_TRUE(records.ok() && !records->empty());
  std::vector<std::string> values;
  for (const ConsumerRecord& r : *records) values.emplace_back(r.value_string());
  ASSERT_TRUE(c->commit().ok());
  ASSERT_TRUE(c->committed("t", 1).ok());
  ASSERT_TRUE(c->describe("t").ok());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ((*records)[i].value_string(), values[i]);
  EXPECT_EQ(broker.connections_accepted() - before, 2);
}

// Waits up to 5 s for the broker to have seen a Fetch from `offset`: the
// client sends it on its own, so there is no event to wait on; the bound
// only turns a missing request into a failure instead of a hang.
bool await_fetch_from(const FakeBroker& broker, int64_t offset) {
  for (int i = 0; i < 500 && broker.highest_fetch_offset() < offset; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return broker.highest_fetch_offset() >= offset;
}

// A consumer assigned all of "t", long-polling up to `wait` (so a Fetch sent
// ahead stays out while the test looks), handing out about
// `max_poll_records` per poll, fetching `partition_max_bytes` (at least one
// batch) per answer.
std::unique_ptr<Consumer> assigned_consumer(
    const FakeBroker& broker, std::chrono::milliseconds wait,
    size_t max_poll_records = ConsumerOptions{}.max_poll_records,
    int32_t partition_max_bytes = ConsumerOptions{}.partition_max_bytes) {
  ConsumerOptions o;
  o.bootstrap = broker.address();
  o.fetch_max_wait = wait;
  o.max_poll_records = max_poll_records;
  o.partition_max_bytes = partition_max_bytes;
  auto c = Consumer::create(o);
  EXPECT_TRUE(c.ok()) << c.status().to_string();
  if (!c.ok()) return nullptr;
  EXPECT_TRUE((*c)->assign("t").ok());
  return std::move(c).value();
}

// Caught up (the answer reached the high watermark), the next Fetch would
// only wait at the broker: it is not sent ahead but by the next poll, so
// the records are handed out without a send before them. Observable here
// because nothing is out when the application seeks: the seek costs no
// reconnection (a Fetch out for the old position closes its link).
TEST(ConsumerFetchAhead, ACaughtUpConsumerSendsItsNextFetchWithTheNextPoll) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  produce(broker, "t", 0, 10);
  auto c = assigned_consumer(broker, std::chrono::seconds(10));
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(read_values(*c, 10).size(), 10u);
  const int connections = broker.connections_accepted();
  ASSERT_TRUE(c->seek("t", 0, 5).ok());
  EXPECT_EQ(read_values(*c, 5),
            (std::vector<std::string>{"value-5", "value-6", "value-7", "value-8", "value-9"}));
  EXPECT_EQ(broker.connections_accepted(), connections) << "a Fetch was out after catching up";
  // The next poll's Fetch long-polls for what comes next.
  produce(broker, "t", 10, 15);
  Result<ConsumerRecords> more = c->poll(std::chrono::seconds(5));
  ASSERT_TRUE(more.ok()) << more.status().to_string();
  std::vector<std::string> values;
  for (const ConsumerRecord& r : *more) values.emplace_back(r.value_string());
  EXPECT_EQ(values,
            (std::vector<std::string>{"value-10", "value-11", "value-12", "value-13", "value-14"}));
  EXPECT_EQ(*c->position("t", 0), 15);
}

// Behind the high watermark, the next Fetch leaves as soon as an answer is
// read, from past what it brought, while its records are still being
// handed out; its answer is read once they all are, and every record comes
// once, in order.
TEST(ConsumerFetchAhead, WhileBehindTheNextFetchLeavesBeforeTheRecordsAreHandedOut) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  for (int i = 0; i < 10; ++i) produce(broker, "t", i, i + 1);  // a batch each
  // One batch per answer and one record per poll: after the first poll
  // the consumer is behind, with nothing fetched left to hand out.
  auto c = assigned_consumer(broker, std::chrono::seconds(10), /*max_poll_records=*/1,
                             /*partition_max_bytes=*/1);
  ASSERT_NE(c, nullptr);
  Result<ConsumerRecords> first = c->poll(std::chrono::seconds(5));
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_TRUE(await_fetch_from(broker, 1)) << "no Fetch sent ahead from past the fetched batch";
  std::vector<std::string> values;
  for (const ConsumerRecord& r : *first) values.emplace_back(r.value_string());
  produce(broker, "t", 10, 13);
  for (const std::string& v : read_values(*c, 13 - values.size())) values.push_back(v);
  std::vector<std::string> expected;
  for (int i = 0; i < 13; ++i) expected.push_back("value-" + std::to_string(i));
  EXPECT_EQ(values, expected);
}

// A seek while a Fetch sent ahead is out drops it (it asked for the old
// position) and the next poll reads from the new one; a poll shorter than
// fetch_max_wait returns at its own timeout with nothing.
TEST(ConsumerFetchAhead, ASeekReplacesTheFetchOutAndAShortPollReturnsAtItsTimeout) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  for (int i = 0; i < 10; ++i) produce(broker, "t", i, i + 1);
  auto c = assigned_consumer(broker, std::chrono::seconds(30), /*max_poll_records=*/1,
                             /*partition_max_bytes=*/1);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(read_values(*c, 1), (std::vector<std::string>{"value-0"}));
  const int connections = broker.connections_accepted();
  ASSERT_TRUE(c->seek("t", 0, 7).ok());
  EXPECT_EQ(read_values(*c, 3), (std::vector<std::string>{"value-7", "value-8", "value-9"}));
  EXPECT_EQ(broker.connections_accepted(), connections + 1) << "the Fetch out was not dropped";
  Result<ConsumerRecords> none = c->poll(std::chrono::milliseconds(20));
  ASSERT_TRUE(none.ok()) << none.status().to_string();
  EXPECT_TRUE(none->empty());
  produce(broker, "t", 10, 12);
  EXPECT_EQ(read_values(*c, 2), (std::vector<std::string>{"value-10", "value-11"}));
}

// A connection the broker dropped (idle timeout, restart) is made again by
// the next call, for fetches and control calls alike.
TEST(Consumer, ReconnectsAfterTheBrokerDroppedItsConnection) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  produce(broker, "t", 0, 10);
  auto c = consumer_for(broker, "g");
  ASSERT_TRUE(c->assign("t").ok());
  ASSERT_EQ(read_values(*c, 10).size(), 10u);
  broker.drop_connections();
  ASSERT_TRUE(c->commit().ok()) << "commit after the drop";
  EXPECT_EQ(*c->committed("t", 0), 10);
  produce(broker, "t", 10, 20);
  broker.drop_connections();
  EXPECT_EQ(read_values(*c, 10).size(), 10u) << "poll after the drop";
}

// Issue 11, integrity: a batch whose CRC-32C does not match (one byte of a
// value flipped on the broker's disk) is never handed out. The records
// before it are; then poll fails with kCorruptMessage naming the topic,
// partition and offset, and keeps failing until the application seeks past.
TEST(Consumer, ACorruptBatchFailsThePollAndNoneOfItsRecordsIsReturned) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  produce(broker, "t", 0, 3);  // one batch per call: offsets 0-2, 3-5, 6-8
  produce(broker, "t", 3, 6);
  produce(broker, "t", 6, 9);
  // Byte 70 of the middle batch: inside its first record (the 61-byte
  // header comes first).
  broker.flip_stored_byte("t", 0, 1, 70);
  auto c = consumer_for(broker);
  ASSERT_TRUE(c->assign("t").ok());
  std::vector<int64_t> offsets;
  Status error;
  for (int polls = 0; polls < 20 && error.ok(); ++polls) {
    Result<ConsumerRecords> records = c->poll(std::chrono::milliseconds(200));
    if (!records.ok()) {
      error = records.status();
      break;
    }
    for (const ConsumerRecord& r : *records) offsets.push_back(r.offset);
  }
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 1, 2})) << "records of the corrupt batch returned";
  EXPECT_EQ(error.code(), ErrorCode::kCorruptMessage) << error.to_string();
  for (const char* part : {"t/0", "offset 3", "CRC"}) {
    EXPECT_NE(error.message().find(part), std::string_view::npos)
        << part << " in " << error.to_string();
  }
  // It stays in the way: the next poll fails the same way.
  Result<ConsumerRecords> again = c->poll(std::chrono::milliseconds(200));
  EXPECT_EQ(again.status().code(), ErrorCode::kCorruptMessage);
  EXPECT_EQ(*c->position("t", 0), 3);
  // Seeking past it reads on.
  ASSERT_TRUE(c->seek("t", 0, 6).ok());
  EXPECT_EQ(read_values(*c, 3), (std::vector<std::string>{"value-6", "value-7", "value-8"}));
}

// `spillway consume` reports the same error and exits 1 after printing the
// records before the corrupt batch.
TEST(Consumer, CliConsumeReportsACorruptBatchAndExitsOne) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  produce(broker, "t", 0, 3);
  produce(broker, "t", 3, 6);
  broker.flip_stored_byte("t", 0, 1, 70);
  Result<testing::ProcessExit> r = testing::run_process(
      testing::cli_binary(),
      {"consume", "t", "--broker", broker.address(), "--from-beginning", "--exit-at-end"});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->exit_code, 1) << r->output;
  EXPECT_NE(r->output.find("value-0\nvalue-1\nvalue-2\n"), std::string::npos) << r->output;
  EXPECT_EQ(r->output.find("value-3"), std::string::npos) << r->output;
  EXPECT_NE(r->output.find("spillway consume: t/0 offset 3: corrupt batch"), std::string::npos)
      << r->output;
}

TEST(ConsumerAlloc, PollingFetchedRecordsAllocatesNothing) {
  FakeBroker broker;
  broker.create_topic("t", 1);
  produce(broker, "t", 0, 2'000);
  ConsumerOptions o;
  o.bootstrap = broker.address();
  o.max_poll_records = 10;  // one fetch serves many polls
  auto c = Consumer::create(o);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->assign("t").ok());
  // Warm up: the first fetch sizes the buffers.
  ASSERT_FALSE((*c)->poll(std::chrono::milliseconds(500))->empty());
  int64_t read = 0;
  uint64_t allocations = 0;
  for (int i = 0; i < 20; ++i) {  // stays inside the first fetch's data
    testing::AllocationScope scope;
    Result<ConsumerRecords> records = (*c)->poll(std::chrono::milliseconds(500));
    allocations += scope.thread_allocations();
    ASSERT_TRUE(records.ok());
    read += static_cast<int64_t>(records->size());
  }
  EXPECT_GT(read, 100);
  EXPECT_EQ(allocations, 0u);
}

}  // namespace
}  // namespace spillway
