// The idempotent producers' state of a Partition across restarts, over the
// in-memory file system and driven as the broker drives it
// (partition_driver.h): the snapshot a clean close writes, the rebuild from
// the log's batch headers after a crash, the snapshot written when the log
// rolls, and a snapshot that a power loss left ahead of the log.
#include <gtest/gtest.h>

#include "log_testing.h"
#include "memory_file_system.h"
#include "partition_driver.h"
#include "spillway/common/batch_builder.h"

namespace spillway::broker {
namespace {

using storage::FlushPolicy;
using storage::LogConfig;
using storage::PartitionLog;
using storage::testing::MemoryFileSystem;
using testing::PartitionDriver;

constexpr char kDir[] = "/d/p";
const std::string kSnapshot = std::string(kDir) + "/" + Partition::kProducerSnapshotFile;

LogConfig config() {
  LogConfig c = storage::testing::small_log_config(FlushPolicy::kInterval);
  c.flush_interval_ms = INT64_MAX / 2;
  c.flush_interval_bytes = UINT64_MAX;
  return c;
}

std::unique_ptr<PartitionDriver> open(MemoryFileSystem& fs) {
  auto driver = PartitionDriver::open(fs, kDir, config());
  EXPECT_TRUE(driver.ok()) << driver.status().to_string();
  return driver.ok() ? std::move(*driver) : nullptr;
}

// A batch of `records` records of `value_bytes` from producer `pid`.
std::vector<std::byte> batch_of(int64_t pid, int32_t seq, int32_t records = 1,
                                size_t value_bytes = 10) {
  std::array<std::byte, 256> scratch;
  WriteBuffer buf(scratch);
  batch::BatchBuilder builder;
  batch::BuilderOptions options;
  options.producer_id = pid;
  options.producer_epoch = 0;
  options.base_sequence = seq;
  EXPECT_TRUE(builder.start(buf, options).ok());
  const std::vector<std::byte> value(value_bytes, std::byte{'v'});
  for (int32_t i = 0; i < records; ++i) {
    batch::RecordInput r;
    r.timestamp = 1'700'000'000'000;
    r.key_is_null = true;
    r.value = value;
    EXPECT_TRUE(builder.append(r).ok());
  }
  EXPECT_TRUE(builder.finish().ok());
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

Offset log_end(PartitionDriver& d) {
  return d.on_owner([](Partition&, PartitionLog& log) { return log.log_end_offset(); });
}

// Appends sequences [0, n) of `pid`, one record each, at offsets [0, n).
void produce(PartitionDriver& d, int64_t pid, int32_t n) {
  for (int32_t s = 0; s < n; ++s) {
    PartitionReply r = d.append(batch_of(pid, s), AckAfter::kWrite);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    ASSERT_EQ(r.base_offset, Offset(s));
  }
}

// The last five of [0, n) are duplicates answered with their offsets, and
// nothing is appended.
void expect_retries_recognised(PartitionDriver& d, int64_t pid, int32_t n) {
  const Offset end = log_end(d);
  for (int32_t s = n - 5; s < n; ++s) {
    PartitionReply r = d.append(batch_of(pid, s), AckAfter::kWrite);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    EXPECT_EQ(r.base_offset, Offset(s));
  }
  EXPECT_EQ(log_end(d), end);
  EXPECT_EQ(d.append(batch_of(pid, n + 1), AckAfter::kWrite).status.code(),
            ErrorCode::kOutOfOrderSequence);
}

TEST(PartitionProducerStateTest, ACleanCloseWritesTheSnapshotTheNextOpenUses) {
  MemoryFileSystem fs;
  auto d = open(fs);
  produce(*d, 7, 8);
  d.reset();  // clean close
  ASSERT_TRUE(fs.exists(kSnapshot));
  ProducerStateTable saved;
  Result<std::string> bytes = fs.read_file(kSnapshot);
  ASSERT_TRUE(bytes.ok());
  Result<Offset> covered = saved.parse(*bytes);
  ASSERT_TRUE(covered.ok()) << covered.status().to_string();
  EXPECT_EQ(*covered, Offset(8));
  ASSERT_NE(saved.find(7), nullptr);
  d = open(fs);
  expect_retries_recognised(*d, 7, 8);
}

TEST(PartitionProducerStateTest, ACrashRebuildsTheStateFromTheBatchHeaders) {
  MemoryFileSystem fs;
  auto d = open(fs);
  produce(*d, 7, 8);
  d->close(Closing::kDeleted);  // what a crash leaves: no snapshot, no clean marker
  d.reset();
  ASSERT_FALSE(fs.exists(kSnapshot));
  d = open(fs);
  expect_retries_recognised(*d, 7, 8);
}

TEST(PartitionProducerStateTest, APartitionWithoutIdempotentProducersKeepsNoSnapshot) {
  MemoryFileSystem fs;
  auto d = open(fs);
  ASSERT_TRUE(d->append(batch_of(-1, -1), AckAfter::kWrite).status.ok());
  d.reset();
  EXPECT_FALSE(fs.exists(kSnapshot));
}

TEST(PartitionProducerStateTest, ARollWritesASnapshotAndAPowerLossPastItIsNotTrusted) {
  MemoryFileSystem fs;
  auto d = open(fs);
  // 1 KiB batches in 4 KiB segments: the fourth or fifth rolls.
  int32_t seq = 0;
  size_t segments = 1;
  while (segments == 1) {
    PartitionReply r = d->append(batch_of(7, seq, 1, 1000), AckAfter::kWrite);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    ++seq;
    segments = d->on_owner([](Partition&, PartitionLog& log) { return log.segment_count(); });
  }
  ASSERT_TRUE(fs.exists(kSnapshot));  // written when the log rolled
  // The batch that opened the new segment was never synced: a power loss
  // takes it, and the snapshot (which covered it) is now ahead of the log.
  d->close(Closing::kDeleted);
  d.reset();
  fs.simulate_power_loss();
  d = open(fs);
  const Offset end = log_end(*d);
  ASSERT_LT(end, Offset(seq));
  // The lost batch, sent again, is appended (not taken for a duplicate of
  // what the stale snapshot named), at the offset it gets now.
  const int32_t lost = static_cast<int32_t>(end.value());
  PartitionReply again = d->append(batch_of(7, lost, 1, 1000), AckAfter::kWrite);
  ASSERT_TRUE(again.status.ok()) << again.status.to_string();
  EXPECT_EQ(again.base_offset, end);
  EXPECT_EQ(log_end(*d), end + 1);
  // The stale snapshot was replaced at open.
  ProducerStateTable saved;
  Result<std::string> bytes = fs.read_file(kSnapshot);
  ASSERT_TRUE(bytes.ok());
  Result<Offset> covered = saved.parse(*bytes);
  ASSERT_TRUE(covered.ok());
  EXPECT_EQ(*covered, end);
}

TEST(PartitionProducerStateTest, ADamagedSnapshotIsIgnoredAndTheLogReadInstead) {
  MemoryFileSystem fs;
  auto d = open(fs);
  produce(*d, 7, 8);
  d.reset();
  fs.set_contents(kSnapshot, std::vector<std::byte>(40, std::byte{1}));
  d = open(fs);
  expect_retries_recognised(*d, 7, 8);
}

}  // namespace
}  // namespace spillway::broker
