// RecordAccumulator on its own: batching and sealing, linger, one batch per
// partition in flight (several with idempotence) with retries going back in
// send order, the sticky partition,
// fencing, expiry, buffer accounting and recycling without allocation.
#include "record_accumulator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc_counter.h"
#include "producer_staging.h"

namespace spillway::producer_internal {
namespace {

using std::chrono::milliseconds;

constexpr std::size_t kValueBytes = 100;

PartitionId pid(int32_t p) {
  return PartitionId(p);
}

class RecordAccumulatorTest : public ::testing::Test {
 protected:
  // Batches of 5 records: a record's entry is a little over 100 bytes.
  RecordAccumulatorTest()
      : acc_({.batch_bytes = entry_bytes() * 5,
              .linger = milliseconds(5),
              .delivery_timeout = milliseconds(1'000)}) {}

  static std::size_t entry_bytes() { return entry_size({}, std::span(value_), {}); }

  RecordToStage record() const {
    return {.value = std::span(value_), .callback = {}, .entry_bytes = entry_bytes()};
  }

  // A topic with `n` partitions.
  TopicQueues& topic(int32_t n, const std::string& name = "t") {
    TopicQueues& t = acc_.topic(name);
    if (t.partitions.empty()) acc_.set_partition_count(t, n);
    return t;
  }

  // Appends `n` records to `partition` of `t` (which must take them).
  void append(TopicQueues& t, PartitionId partition, int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(acc_.append(t, partition, Placement::kChosen, record()).error.ok());
    }
  }

  static std::vector<Batch*> list(Batch* b) {
    std::vector<Batch*> out;
    for (; b; b = b->next) out.push_back(b);
    return out;
  }

  static inline std::byte value_[kValueBytes] = {};
  RecordAccumulator acc_;
};

TEST_F(RecordAccumulatorTest, StagesRecordsInOneOpenBatchAndSealsItWhenFull) {
  TopicQueues& t = topic(2);
  append(t, pid(0), 4);
  Batch* open = t.partitions[0].head;
  ASSERT_NE(open, nullptr);
  EXPECT_EQ(open->count, 4);
  EXPECT_FALSE(open->sealed);
  EXPECT_EQ(acc_.buffered_bytes(), 4 * entry_bytes());

  RecordAccumulator::Appended fifth = acc_.append(t, pid(0), Placement::kChosen, record());
  EXPECT_TRUE(fifth.batch_changed);  // the full batch is sealed
  EXPECT_TRUE(open->sealed);
  append(t, pid(0), 1);
  EXPECT_NE(t.partitions[0].tail, open);  // the sixth record opened a second batch
  EXPECT_EQ(t.partitions[0].tail->count, 1);
}

TEST_F(RecordAccumulatorTest, AnOpenBatchIsReadyAfterItsLingerOrAtOnceWhenFlushing) {
  TopicQueues& t = topic(1);
  append(t, pid(0), 1);
  const Clock::time_point created = t.partitions[0].head->created;
  EXPECT_EQ(acc_.drain_ready(created, Linger::kWait, 1 << 20), nullptr);
  EXPECT_EQ(acc_.next_due(created + milliseconds(1'000), Linger::kWait), created + milliseconds(5));
  Batch* ready = acc_.drain_ready(created, Linger::kSkip, 1 << 20);
  ASSERT_NE(ready, nullptr);
  EXPECT_TRUE(ready->sealed);  // drained: no more records join it
  EXPECT_EQ(t.partitions[0].head, nullptr);
}

TEST_F(RecordAccumulatorTest, OneBatchPerPartitionInFlightAndARetryGoesBeforeTheRest) {
  TopicQueues& t = topic(2);
  append(t, pid(0), 7);  // a full batch and an open one
  append(t, pid(1), 5);
  const Clock::time_point later = Clock::now() + milliseconds(10);
  std::vector<Batch*> first = list(acc_.drain_ready(later, Linger::kWait, 1 << 20));
  ASSERT_EQ(first.size(), 2u);  // one batch of each partition
  EXPECT_EQ(first[0]->partition, pid(0));
  EXPECT_EQ(first[0]->count, 5);
  EXPECT_EQ(first[1]->partition, pid(1));
  EXPECT_EQ(acc_.drain_ready(later, Linger::kWait, 1 << 20), nullptr)
      << "partition 0's second batch overtook the one in flight";

  // Partition 0's batch failed retriably: it goes first again.
  acc_.finished(first[0]);
  acc_.requeue(first[0]);
  std::vector<Batch*> again = list(acc_.drain_ready(later, Linger::kWait, 1 << 20));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0], first[0]);
  acc_.finished(again[0]);
  std::vector<Batch*> rest = list(acc_.drain_ready(later, Linger::kWait, 1 << 20));
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0]->count, 2);
}

// With idempotence several batches of a partition are in flight at once;
// the ones that fail go back in send order whatever order their failures
// came in, ahead of the batches never sent.
TEST_F(RecordAccumulatorTest, WithIdempotenceSeveralBatchesFlyAndRetriesKeepTheirSendOrder) {
  TopicQueues& t = topic(1);
  acc_.set_in_flight_per_partition(3);
  append(t, pid(0), 22);  // four full batches and an open one
  const Clock::time_point later = Clock::now() + milliseconds(10);
  const auto drain_one = [&] {
    std::vector<Batch*> one =
        list(acc_.drain_ready(later, Linger::kWait, 1 << 20, wire::kBootstrapBroker, 7));
    return one.empty() ? nullptr : one.front();
  };
  std::vector<Batch*> flying;
  for (int i = 0; i < 3; ++i) flying.push_back(drain_one());
  ASSERT_NE(flying[0], nullptr);
  ASSERT_NE(flying[1], nullptr);
  ASSERT_NE(flying[2], nullptr);
  EXPECT_EQ(drain_one(), nullptr) << "a fourth batch in flight past the limit of three";

  // The second fails first, then the first, then the third (behind them).
  acc_.finished(flying[1]);
  acc_.requeue(flying[1]);
  EXPECT_FALSE(acc_.earlier_batch_queued(flying[0]));
  acc_.finished(flying[0]);
  acc_.requeue(flying[0]);
  EXPECT_TRUE(acc_.earlier_batch_queued(flying[2]));
  acc_.finished(flying[2]);
  acc_.requeue(flying[2]);

  std::vector<Batch*> again;
  for (int i = 0; i < 3; ++i) again.push_back(drain_one());
  EXPECT_EQ(again, flying) << "retries out of send order";
  for (Batch* b : again) acc_.finished(b);
  Batch* fourth = drain_one();
  ASSERT_NE(fourth, nullptr);
  EXPECT_EQ(fourth->count, 5);
  EXPECT_GT(fourth->drained, flying[2]->drained);
  Batch* open = drain_one();
  ASSERT_NE(open, nullptr);
  EXPECT_EQ(open->count, 2);
}

// A retry waits until the batches sent after it are answered: sent before
// their answers, it would reach the broker behind them (which the broker
// refuses for the gap) instead of ahead.
TEST_F(RecordAccumulatorTest, ARetryWaitsUntilTheBatchesSentAfterItAreAnswered) {
  TopicQueues& t = topic(1);
  acc_.set_in_flight_per_partition(3);
  append(t, pid(0), 15);  // three full batches
  const Clock::time_point later = Clock::now() + milliseconds(10);
  const auto drain_one = [&] {
    std::vector<Batch*> one =
        list(acc_.drain_ready(later, Linger::kWait, 1 << 20, wire::kBootstrapBroker, 7));
    return one.empty() ? nullptr : one.front();
  };
  Batch* a = drain_one();
  Batch* b = drain_one();
  Batch* c = drain_one();
  ASSERT_NE(c, nullptr);
  acc_.finished(a);  // failed retriably
  acc_.requeue(a);
  EXPECT_EQ(drain_one(), nullptr) << "the retry left while later batches were in flight";
  acc_.finished(b);  // refused for the gap
  acc_.requeue(b);
  EXPECT_EQ(drain_one(), nullptr);
  acc_.finished(c);
  acc_.requeue(c);
  EXPECT_EQ(drain_one(), a);
  EXPECT_EQ(drain_one(), b);
  EXPECT_EQ(drain_one(), c);
}

// Batches in flight together are numbered under one producer id: a batch
// to be numbered under a new id waits until a retry numbered under the old
// one is answered (it could otherwise be stored before that retry).
TEST_F(RecordAccumulatorTest, BatchesOfTwoProducerIdsAreNotInFlightTogether) {
  TopicQueues& t = topic(1);
  acc_.set_in_flight_per_partition(5);
  append(t, pid(0), 10);  // two full batches
  const Clock::time_point later = Clock::now() + milliseconds(10);
  std::vector<Batch*> first =
      list(acc_.drain_ready(later, Linger::kWait, 1 << 20, wire::kBootstrapBroker, 7));
  ASSERT_EQ(first.size(), 1u);
  first[0]->producer_id = 7;  // numbered by the sender under id 7
  first[0]->base_sequence = 0;
  EXPECT_EQ(acc_.drain_ready(later, Linger::kWait, 1 << 20, wire::kBootstrapBroker, 8), nullptr)
      << "a batch for producer id 8 flew beside one of id 7";
  EXPECT_NE(acc_.drain_ready(later, Linger::kWait, 1 << 20, wire::kBootstrapBroker, 7), nullptr);
}

TEST_F(RecordAccumulatorTest, ADrainStopsAtTheRequestSizeButTakesAtLeastOneBatch) {
  TopicQueues& t = topic(3);
  for (int32_t p = 0; p < 3; ++p) append(t, pid(p), 5);
  const Clock::time_point now = Clock::now();
  EXPECT_EQ(list(acc_.drain_ready(now, Linger::kWait, 1)).size(), 1u);
  EXPECT_EQ(list(acc_.drain_ready(now, Linger::kWait, 10 * entry_bytes())).size(), 2u);
}

TEST_F(RecordAccumulatorTest, KeylessRecordsFollowTheStickyPartitionWhenItsBatchCloses) {
  TopicQueues& t = topic(3);
  const PartitionId first = t.sticky;
  const PartitionId second = pid((first.value() + 1) % 3), third = pid((first.value() + 2) % 3);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(acc_.append(t, t.sticky, Placement::kSticky, record()).partition, first);
  }
  EXPECT_EQ(t.sticky, second);  // the batch filled up: the sticky partition moved on

  // A record that would overfill the open batch closes it and goes to the
  // next sticky partition; one placed by key stays where it was put.
  append(t, t.sticky, 4);
  static std::byte twice[2 * kValueBytes] = {};
  RecordToStage big = record();
  big.value = std::span(twice);
  big.entry_bytes = entry_size({}, big.value, {});
  EXPECT_EQ(acc_.append(t, second, Placement::kSticky, big).partition, third);
  append(t, third, 3);
  EXPECT_EQ(acc_.append(t, third, Placement::kChosen, big).partition, third);
}

TEST_F(RecordAccumulatorTest, AFenceFailsWhatIsQueuedAndRefusesLaterRecordsUntilReset) {
  TopicQueues& t = topic(2);
  append(t, pid(0), 7);
  append(t, pid(1), 1);
  Batch* done = nullptr;
  const Status cause(ErrorCode::kTimeout, "lost");
  acc_.fence(t, pid(0), cause, &done);
  std::vector<Batch*> failed = list(done);
  ASSERT_EQ(failed.size(), 2u);
  for (Batch* b : failed) {
    EXPECT_EQ(b->error.code(), ErrorCode::kTimeout);
    EXPECT_NE(b->error.message().find("t/0 is fenced"), std::string_view::npos);
  }
  RecordAccumulator::Appended refused = acc_.append(t, pid(0), Placement::kChosen, record());
  EXPECT_EQ(refused.error.code(), ErrorCode::kTimeout);
  append(t, pid(1), 1);  // other partitions are not affected
  ASSERT_EQ(acc_.fenced_partitions().size(), 1u);
  EXPECT_EQ(acc_.fenced_partitions()[0].partition, 0);
  EXPECT_EQ(acc_.fenced_partitions()[0].cause.message(), "lost");

  EXPECT_EQ(acc_.reset_fence("nope", pid(0)).code(), ErrorCode::kUnknownTopic);
  EXPECT_EQ(acc_.reset_fence("t", pid(2)).code(), ErrorCode::kUnknownPartition);
  ASSERT_TRUE(acc_.reset_fence("t", pid(0)).ok());
  append(t, pid(0), 1);
  EXPECT_TRUE(acc_.fenced_partitions().empty());
  for (Batch* b : failed) acc_.release(b);
}

TEST_F(RecordAccumulatorTest, ExpiryTakesTheHeadsPastTheirDeadlineOrEveryHeadWhenClosing) {
  TopicQueues& t = topic(2);
  append(t, pid(0), 1);
  const Clock::time_point deadline = t.partitions[0].head->deadline;
  EXPECT_EQ(acc_.next_expiry(Clock::time_point::max()), deadline);
  EXPECT_EQ(acc_.take_expired(deadline - milliseconds(1), false), nullptr);
  append(t, pid(1), 1);
  EXPECT_EQ(list(acc_.take_expired(deadline - milliseconds(1), true)).size(), 2u);
  EXPECT_TRUE(acc_.idle());
}

TEST_F(RecordAccumulatorTest, ReleasedBatchesAreReusedAndTheSteadyStateAllocatesNothing) {
  TopicQueues& t = topic(4);
  const auto round = [&] {
    for (int32_t p = 0; p < 4; ++p) append(t, pid(p), 5);
    for (Batch* b = acc_.drain_ready(Clock::now(), Linger::kWait, 1 << 20); b;) {
      Batch* next = b->next;
      acc_.finished(b);
      acc_.release(b);
      b = next;
    }
  };
  round();  // warm up: staging segments rented from the pool
  testing::AllocationScope scope;
  for (int i = 0; i < 100; ++i) round();
  EXPECT_EQ(scope.thread_allocations(), 0u);
  EXPECT_EQ(acc_.buffered_bytes(), 0u);
  EXPECT_TRUE(acc_.idle());
}

}  // namespace
}  // namespace spillway::producer_internal
