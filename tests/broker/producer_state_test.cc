// ProducerStateTable: Kafka's sequence rules (duplicates of each cached
// batch, gaps, fenced and new epochs, wrap-around), expiry and the snapshot.
#include "core/producer_state.h"

#include <gtest/gtest.h>

namespace spillway::broker {
namespace {

batch::BatchHeader header(int64_t pid, int16_t epoch, int32_t seq, int32_t records) {
  batch::BatchHeader h{};
  h.producer_id = pid;
  h.producer_epoch = epoch;
  h.base_sequence = seq;
  h.record_count = records;
  h.last_offset_delta = records - 1;
  return h;
}

// Checks and, when it is to be appended, records the batch at `*next`.
Result<SequenceCheck> produce(ProducerStateTable& t, const batch::BatchHeader& h, int64_t* next,
                              int64_t now_ms = 0) {
  Result<SequenceCheck> c = t.check(h);
  if (c.ok() && !c->duplicate) {
    t.record(h, Offset(*next), Offset(*next + h.record_count - 1), now_ms);
    *next += h.record_count;
  }
  return c;
}

TEST(ProducerStateTest, NonIdempotentBatchesAreNeverChecked) {
  ProducerStateTable t;
  int64_t next = 0;
  for (int i = 0; i < 3; ++i) {
    auto c = produce(t, header(-1, -1, -1, 2), &next);
    ASSERT_TRUE(c.ok());
    EXPECT_FALSE(c->duplicate);
  }
  EXPECT_EQ(t.size(), 0u);
}

TEST(ProducerStateTest, InSequenceBatchesAppend) {
  ProducerStateTable t;
  int64_t next = 0;
  ASSERT_TRUE(produce(t, header(7, 0, 0, 3), &next).ok());
  ASSERT_TRUE(produce(t, header(7, 0, 3, 2), &next).ok());
  ASSERT_TRUE(produce(t, header(7, 0, 5, 1), &next).ok());
  EXPECT_EQ(next, 6);
  EXPECT_EQ(t.find(7)->last().last_seq, 5);
}

TEST(ProducerStateTest, EachOfTheLastFiveBatchesIsADuplicateWithItsOriginalOffsets) {
  ProducerStateTable t;
  int64_t next = 100;
  for (int32_t b = 0; b < 7; ++b) ASSERT_TRUE(produce(t, header(1, 0, b * 2, 2), &next).ok());
  // Batches 2..6 are cached; each retried is answered with its offsets.
  for (int32_t b = 2; b < 7; ++b) {
    auto c = t.check(header(1, 0, b * 2, 2));
    ASSERT_TRUE(c.ok()) << b;
    EXPECT_TRUE(c->duplicate) << b;
    EXPECT_EQ(c->original.base_offset, 100 + b * 2);
    EXPECT_EQ(c->original.last_offset, 100 + b * 2 + 1);
  }
  // Older than the cache: Kafka answers OUT_OF_ORDER_SEQUENCE_NUMBER.
  for (int32_t b = 0; b < 2; ++b) {
    auto c = t.check(header(1, 0, b * 2, 2));
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), ErrorCode::kOutOfOrderSequence);
  }
  EXPECT_EQ(next, 114);
}

TEST(ProducerStateTest, ASameStartButDifferentLengthIsNotADuplicate) {
  ProducerStateTable t;
  int64_t next = 0;
  ASSERT_TRUE(produce(t, header(1, 0, 0, 2), &next).ok());
  auto c = t.check(header(1, 0, 0, 3));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kOutOfOrderSequence);
}

TEST(ProducerStateTest, AGapIsOutOfOrder) {
  ProducerStateTable t;
  int64_t next = 0;
  ASSERT_TRUE(produce(t, header(1, 0, 0, 2), &next).ok());
  auto c = produce(t, header(1, 0, 3, 1), &next);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kOutOfOrderSequence);
  EXPECT_EQ(next, 2);  // nothing appended
  EXPECT_TRUE(produce(t, header(1, 0, 2, 1), &next).ok());
}

TEST(ProducerStateTest, AnOlderEpochIsFenced) {
  ProducerStateTable t;
  int64_t next = 0;
  ASSERT_TRUE(produce(t, header(1, 3, 0, 1), &next).ok());
  auto c = t.check(header(1, 2, 1, 1));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kInvalidProducerEpoch);
}

TEST(ProducerStateTest, ANewerEpochMustStartAtSequenceZero) {
  ProducerStateTable t;
  int64_t next = 0;
  ASSERT_TRUE(produce(t, header(1, 0, 0, 5), &next).ok());
  auto bad = t.check(header(1, 1, 5, 1));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kOutOfOrderSequence);
  ASSERT_TRUE(produce(t, header(1, 1, 0, 1), &next).ok());
  EXPECT_EQ(t.find(1)->epoch, 1);
  // The old epoch's batches are gone, and the old epoch is fenced.
  EXPECT_EQ(t.find(1)->count, 1);
  EXPECT_EQ(t.check(header(1, 0, 0, 5)).status().code(), ErrorCode::kInvalidProducerEpoch);
}

TEST(ProducerStateTest, AnUnknownProducerMustStartAtSequenceZero) {
  // Kafka >= 2.5 takes any sequence; here the batches before it may be
  // missing (a leader elected without them), so the client must learn.
  ProducerStateTable t;
  int64_t next = 0;
  EXPECT_EQ(produce(t, header(9, 0, 42, 1), &next).status().code(), ErrorCode::kUnknownProducerId);
  EXPECT_EQ(t.find(9), nullptr);
  ASSERT_TRUE(produce(t, header(9, 0, 0, 1), &next).ok());
  EXPECT_TRUE(produce(t, header(9, 0, 1, 1), &next).ok());
}

TEST(ProducerStateTest, NegativeSequenceOrEpochWithAProducerIdIsRefused) {
  ProducerStateTable t;
  EXPECT_EQ(t.check(header(1, 0, -1, 1)).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(t.check(header(1, -1, 0, 1)).status().code(), ErrorCode::kInvalidArgument);
}

TEST(ProducerStateTest, SequencesWrapAtInt32Max) {
  EXPECT_EQ(ProducerStateTable::last_sequence(INT32_MAX, 1), INT32_MAX);
  EXPECT_EQ(ProducerStateTable::last_sequence(INT32_MAX, 2), 0);
  EXPECT_EQ(ProducerStateTable::last_sequence(INT32_MAX - 1, 4), 1);
  ProducerStateTable t;
  int64_t next = 0;
  // Producers that have counted this far (seeded as a log replay does).
  t.record(header(1, 0, INT32_MAX - 5, 3), Offset(0), Offset(2), 0);
  t.record(header(2, 0, INT32_MAX - 4, 3), Offset(3), Offset(5), 0);
  next = 6;
  ASSERT_TRUE(produce(t, header(1, 0, INT32_MAX - 2, 3), &next).ok());  // ends at INT32_MAX
  ASSERT_TRUE(produce(t, header(1, 0, 0, 2), &next).ok());
  ASSERT_TRUE(produce(t, header(1, 0, 2, 1), &next).ok());
  auto dup = t.check(header(1, 0, INT32_MAX - 2, 3));
  ASSERT_TRUE(dup.ok());
  EXPECT_TRUE(dup->duplicate);
  // A batch spanning the wrap.
  ASSERT_TRUE(produce(t, header(2, 0, INT32_MAX - 1, 4), &next).ok());  // ..., 0, 1
  EXPECT_EQ(t.find(2)->last().last_seq, 1);
  EXPECT_TRUE(produce(t, header(2, 0, 2, 1), &next).ok());
  EXPECT_EQ(t.check(header(2, 0, 0, 1)).status().code(), ErrorCode::kOutOfOrderSequence);
}

TEST(ProducerStateTest, IdleProducersExpire) {
  ProducerStateTable t;
  int64_t next = 0;
  ASSERT_TRUE(produce(t, header(1, 0, 0, 1), &next, /*now_ms=*/1'000).ok());
  ASSERT_TRUE(produce(t, header(2, 0, 0, 1), &next, /*now_ms=*/5'000).ok());
  EXPECT_EQ(t.expire(/*now_ms=*/5'999, /*expiration_ms=*/5'000), 0u);
  EXPECT_EQ(t.expire(6'000, 5'000), 1u);
  EXPECT_EQ(t.find(1), nullptr);
  ASSERT_NE(t.find(2), nullptr);
  // An expired producer is unknown again: sequence 0 starts it; another
  // sequence is refused (the batches before it are not known here).
  EXPECT_EQ(t.check(header(1, 0, 1, 1)).status().code(), ErrorCode::kUnknownProducerId);
  EXPECT_TRUE(t.check(header(1, 0, 0, 1)).ok());
}

TEST(ProducerStateTest, SnapshotRoundTrips) {
  ProducerStateTable t;
  int64_t next = 0;
  for (int32_t b = 0; b < 7; ++b) ASSERT_TRUE(produce(t, header(1, 4, b, 1), &next, 77).ok());
  ASSERT_TRUE(produce(t, header(2, 0, 0, 3), &next, 88).ok());
  const std::string blob = t.serialize(Offset(next));
  ProducerStateTable u;
  Result<Offset> parsed = u.parse(blob);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(parsed->value(), next);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u.find(1)->epoch, 4);
  EXPECT_EQ(u.find(1)->count, 5);
  EXPECT_EQ(u.find(1)->last_update_ms, 77);
  for (int32_t b = 2; b < 7; ++b) EXPECT_TRUE(u.check(header(1, 4, b, 1))->duplicate) << b;
  EXPECT_TRUE(u.check(header(1, 4, 7, 1)).ok());
  EXPECT_EQ(u.check(header(1, 4, 9, 1)).status().code(), ErrorCode::kOutOfOrderSequence);
  EXPECT_EQ(u.find(2)->last().last_offset, next - 1);
}

TEST(ProducerStateTest, ADamagedSnapshotIsRefusedAndLeavesTheTable) {
  ProducerStateTable t;
  int64_t next = 0;
  ASSERT_TRUE(produce(t, header(1, 0, 0, 1), &next).ok());
  std::string blob = t.serialize(Offset(next));
  ProducerStateTable u;
  ASSERT_TRUE(produce(u, header(5, 0, 0, 1), &next).ok());
  for (size_t cut = 0; cut < blob.size(); ++cut) {
    EXPECT_FALSE(u.parse(std::string_view(blob).substr(0, cut)).ok()) << cut;
  }
  blob[10] ^= 1;
  EXPECT_EQ(u.parse(blob).status().code(), ErrorCode::kCorruptMessage);
  EXPECT_NE(u.find(5), nullptr);
}

}  // namespace
}  // namespace spillway::broker
