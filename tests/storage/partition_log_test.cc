// PartitionLog behaviour: round trips across segment rolls, reads from the
// middle of a batch, read limits, the offset index, retention, flush policy.
#include "spillway/storage/partition_log.h"

#include <gtest/gtest.h>

#include "log_testing.h"
#include "memory_file_system.h"

namespace spillway::storage {
namespace {

using testing::Bytes;
using testing::make_batch;
using testing::MemoryFileSystem;
using testing::read_batches;

constexpr char kDir[] = "/data/topic-0";

LogConfig small_config() {
  LogConfig c;
  c.segment_bytes = 8192;
  c.index_interval_bytes = 512;
  c.flush_policy = FlushPolicy::kInterval;
  return c;
}

std::unique_ptr<PartitionLog> open_log(FileSystem& fs, LogConfig config,
                                       PartitionLog::Clock clock = &PartitionLog::system_clock_ms) {
  Result<std::unique_ptr<PartitionLog>> log = PartitionLog::open(fs, kDir, config, clock);
  EXPECT_TRUE(log.ok()) << log.status().to_string();
  return log.ok() ? std::move(*log) : nullptr;
}

// Appends `n` batches of varying size; returns their stored bytes.
std::vector<Bytes> append_many(PartitionLog& log, int n, uint64_t seed) {
  std::vector<Bytes> stored;
  for (int i = 0; i < n; ++i) {
    Bytes b = make_batch(1 + (i % 5), 40 + (i * 37) % 400, seed + i);
    Result<AppendResult> r = log.append(b, LeaderEpoch(7));
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    stored.push_back(b);  // append stamped offset and epoch into b
  }
  return stored;
}

TEST(PartitionLog, RoundTripAcrossSegmentRolls) {
  MemoryFileSystem fs;
  auto log = open_log(fs, small_config());
  std::vector<Bytes> stored = append_many(*log, 200, 1);
  EXPECT_GT(log->segment_count(), 5u);
  for (uint64_t max_bytes : {uint64_t{1}, uint64_t{700}, uint64_t{5000}, uint64_t{1} << 20}) {
    std::vector<Bytes> got = read_batches(*log, 0, max_bytes);
    SCOPED_TRACE("max_bytes " + std::to_string(max_bytes));
    EXPECT_TRUE(testing::SameBatches(got, stored));
  }
  // The stored copies carry the assigned offsets and epoch.
  int64_t next = 0;
  for (const Bytes& b : stored) {
    auto h = batch::parse_header(b);
    EXPECT_EQ(h->base_offset, next);
    EXPECT_EQ(h->partition_leader_epoch, 7);
    next = h->last_offset() + 1;
  }
  EXPECT_EQ(log->log_end_offset(), Offset(next));
  // Segment files are named by their 20-digit base offset.
  auto names = fs.list_dir(kDir);
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(fs.exists(std::string(kDir) + "/00000000000000000000.log"));
  std::size_t logs = 0;
  for (const auto& n : *names) logs += n.size() == 24 && n.ends_with(".log");
  EXPECT_EQ(logs, log->segment_count());
}

TEST(PartitionLog, RoundTripSurvivesReopen) {
  MemoryFileSystem fs;
  std::vector<Bytes> stored;
  {
    auto log = open_log(fs, small_config());
    stored = append_many(*log, 60, 2);
    ASSERT_TRUE(log->close().ok());
  }
  auto log = open_log(fs, small_config());
  EXPECT_FALSE(fs.exists(std::string(kDir) + "/.clean_shutdown"));
  EXPECT_TRUE(testing::SameBatches(read_batches(*log, 0, 4096), stored));
  std::vector<Bytes> more = append_many(*log, 10, 3);
  stored.insert(stored.end(), more.begin(), more.end());
  EXPECT_TRUE(testing::SameBatches(read_batches(*log, 0, 4096), stored));
}

TEST(PartitionLog, ReadFromTheMiddleOfABatchStartsAtThatBatch) {
  MemoryFileSystem fs;
  auto log = open_log(fs, small_config());
  Bytes first = make_batch(3, 10, 1);
  Bytes second = make_batch(5, 10, 2);
  ASSERT_TRUE(log->append(first).ok());
  ASSERT_TRUE(log->append(second).ok());
  for (int64_t offset = 3; offset < 8; ++offset) {
    Result<FileSlice> slice = log->read(Offset(offset), 1);
    ASSERT_TRUE(slice.ok());
    EXPECT_EQ(slice->first_offset, Offset(3));
    EXPECT_EQ(slice->next_offset, Offset(8));
    Bytes got(slice->length);
    ASSERT_TRUE(read_slice(*slice, got).ok());
    EXPECT_TRUE(got == second);
  }
}

TEST(PartitionLog, FirstBatchWholeEvenAboveMaxBytesThenOnlyWholeBatches) {
  MemoryFileSystem fs;
  auto log = open_log(fs, small_config());
  Bytes a = make_batch(1, 300, 1), b = make_batch(1, 300, 2), c = make_batch(1, 300, 3);
  ASSERT_TRUE(log->append(a).ok());
  ASSERT_TRUE(log->append(b).ok());
  ASSERT_TRUE(log->append(c).ok());
  Result<FileSlice> one = log->read(Offset(0), 10);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->length, a.size());
  Result<FileSlice> two = log->read(Offset(0), a.size() + b.size() + c.size() - 1);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->length, a.size() + b.size());
  EXPECT_EQ(two->next_offset, Offset(2));
}

// A large read that stops short of the log's end (a consumer catching up)
// has the kernel read the same amount after it ahead; a read that reaches
// the end (a consumer at the tail) and a small one ask nothing.
TEST(PartitionLog, LargeReadsBehindTheEndReadTheNextStretchAhead) {
  MemoryFileSystem fs;
  LogConfig config = small_config();
  config.segment_bytes = 1 << 20;
  auto log = open_log(fs, config);
  uint64_t total = 0;
  for (int i = 0; i < 40; ++i) {
    Bytes b = make_batch(1, 4000, static_cast<uint64_t>(i));
    ASSERT_TRUE(log->append(b).ok());
    total += b.size();
  }
  ASSERT_EQ(log->segment_count(), 1u);
  Result<FileSlice> small = log->read(Offset(0), 20'000);
  ASSERT_TRUE(small.ok());
  EXPECT_TRUE(fs.advised().empty());
  Result<FileSlice> behind = log->read(Offset(0), 80'000);
  ASSERT_TRUE(behind.ok());
  ASSERT_GE(behind->length, 64u << 10);
  ASSERT_LT(behind->next_offset, log->log_end_offset());
  ASSERT_EQ(fs.advised().size(), 1u);
  EXPECT_EQ(fs.advised()[0].first, behind->position + behind->length);
  EXPECT_EQ(fs.advised()[0].second, behind->length);
  Result<FileSlice> to_end = log->read(Offset(20), total);
  ASSERT_TRUE(to_end.ok());
  ASSERT_GE(to_end->length, 64u << 10);
  EXPECT_EQ(to_end->next_offset, log->log_end_offset());
  EXPECT_EQ(fs.advised().size(), 1u);
}

TEST(PartitionLog, ReadOutsideTheLogIsOutOfRangeAndAtTheEndEmpty) {
  MemoryFileSystem fs;
  auto log = open_log(fs, small_config());
  Bytes a = make_batch(2, 10, 1);
  ASSERT_TRUE(log->append(a).ok());
  EXPECT_EQ(log->read(Offset(3), 100).status().code(), ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(log->read(Offset(-1), 100).status().code(), ErrorCode::kOffsetOutOfRange);
  Result<FileSlice> end = log->read(Offset(2), 100);
  ASSERT_TRUE(end.ok());
  EXPECT_TRUE(end->empty());
}

TEST(PartitionLog, RejectsBatchesWhoseHeaderDisagreesWithTheirSize) {
  MemoryFileSystem fs;
  LogConfig config = small_config();
  config.max_batch_bytes = 1000;
  auto log = open_log(fs, config);
  Bytes big = make_batch(1, 2000, 1);
  EXPECT_EQ(log->append(big).status().code(), ErrorCode::kBatchTooLarge);
  Bytes b = make_batch(1, 10, 1);
  Bytes truncated(b.begin(), b.end() - 1);
  EXPECT_EQ(log->append(truncated).status().code(), ErrorCode::kCorruptMessage);
  Bytes tiny(10);
  EXPECT_EQ(log->append(tiny).status().code(), ErrorCode::kCorruptMessage);
  EXPECT_EQ(log->log_end_offset(), Offset(0));
}

TEST(PartitionLog, IndexIsSparseAndRebuiltAfterDeletion) {
  MemoryFileSystem fs;
  std::vector<Bytes> stored;
  std::vector<std::string> index_files;
  std::vector<std::vector<std::byte>> index_bytes;
  {
    auto log = open_log(fs, small_config());
    stored = append_many(*log, 120, 4);
    ASSERT_TRUE(log->close().ok());
  }
  auto names = fs.list_dir(kDir);
  ASSERT_TRUE(names.ok());
  for (const auto& name : *names) {
    if (!name.ends_with(".index")) continue;
    index_files.push_back(std::string(kDir) + "/" + name);
    index_bytes.push_back(fs.contents(index_files.back()));
  }
  ASSERT_GT(index_files.size(), 3u);
  // Sparse: about one 8-byte entry per index_interval_bytes of log.
  const auto first_log = fs.contents(std::string(kDir) + "/00000000000000000000.log");
  EXPECT_GT(index_bytes[0].size(), 0u);
  EXPECT_LE(index_bytes[0].size() / 8, first_log.size() / 512);
  for (const auto& f : index_files) ASSERT_TRUE(fs.remove(f).ok());
  auto log = open_log(fs, small_config());
  for (std::size_t i = 0; i < index_files.size(); ++i) {
    EXPECT_EQ(fs.contents(index_files[i]), index_bytes[i]) << index_files[i];
  }
  EXPECT_TRUE(testing::SameBatches(read_batches(*log, 0, 1000), stored));
  // Every offset finds its batch through the rebuilt index.
  int64_t offset = 0;
  for (const Bytes& b : stored) {
    auto h = batch::parse_header(b);
    for (int64_t o = h->base_offset; o <= h->last_offset(); ++o) {
      Result<FileSlice> s = log->read(Offset(o), 1);
      ASSERT_TRUE(s.ok());
      EXPECT_EQ(s->first_offset, Offset(h->base_offset));
    }
    offset = h->last_offset() + 1;
  }
  EXPECT_EQ(Offset(offset), log->log_end_offset());
}

TEST(PartitionLog, RollsByAge) {
  MemoryFileSystem fs;
  int64_t now = 1'000'000;
  LogConfig config = small_config();
  config.segment_bytes = 1 << 20;
  config.segment_ms = 1000;
  auto log = open_log(fs, config, [&] { return now; });
  Bytes a = make_batch(1, 10, 1);
  ASSERT_TRUE(log->append(a).ok());
  now += 999;
  Bytes b = make_batch(1, 10, 2);
  ASSERT_TRUE(log->append(b).ok());
  EXPECT_EQ(log->segment_count(), 1u);
  now += 1;
  ASSERT_TRUE(log->append(b).ok());
  EXPECT_EQ(log->segment_count(), 2u);
  EXPECT_TRUE(fs.exists(std::string(kDir) + "/00000000000000000002.log"));
}

TEST(PartitionLog, RetentionByBytesDeletesExactlyTheOldestSegments) {
  MemoryFileSystem fs;
  LogConfig config = small_config();
  config.segment_bytes = 4096;
  config.retention_ms = -1;
  auto log = open_log(fs, config);
  // 1000-byte batches: four per 4 KiB segment.
  for (int i = 0; i < 22; ++i) {
    Bytes b = make_batch(1, 1000 - 70, i);
    ASSERT_EQ(b.size(), 1000u);
    ASSERT_TRUE(log->append(b).ok());
  }
  ASSERT_EQ(log->segment_count(), 6u);  // 5 full + 2 batches active
  // Total 22000; dropping a 4000-byte segment is allowed while 18000, 14000,
  // 10000 remain >= 9500; dropping a fourth would leave 6000.
  log.reset();
  LogConfig limited = config;
  limited.retention_bytes = 9500;
  auto reopened = open_log(fs, limited);
  Result<std::size_t> deleted = reopened->enforce_retention();
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 3u);
  EXPECT_EQ(reopened->log_start_offset(), Offset(12));
  EXPECT_FALSE(fs.exists(std::string(kDir) + "/00000000000000000008.log"));
  EXPECT_FALSE(fs.exists(std::string(kDir) + "/00000000000000000008.index"));
  EXPECT_TRUE(fs.exists(std::string(kDir) + "/00000000000000000012.log"));
  EXPECT_EQ(reopened->read(Offset(11), 100).status().code(), ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(read_batches(*reopened, 12, 1 << 20).size(), 10u);
  // Never the active segment, whatever the limit.
  reopened.reset();
  limited.retention_bytes = 0;
  auto zero = open_log(fs, limited);
  ASSERT_TRUE(zero->enforce_retention().ok());
  EXPECT_EQ(zero->segment_count(), 1u);
  EXPECT_EQ(zero->log_start_offset(), Offset(20));
  EXPECT_EQ(read_batches(*zero, 20, 1 << 20).size(), 2u);
}

TEST(PartitionLog, RetentionByAgeDeletesExactlyTheExpiredSegments) {
  MemoryFileSystem fs;
  int64_t now = 10'000'000;
  LogConfig config = small_config();
  config.segment_bytes = 4096;
  config.retention_ms = 5000;
  auto log = open_log(fs, config, [&] { return now; });
  // Segment k gets its last write at time 10'000'000 + k*2000.
  for (int seg = 0; seg < 5; ++seg) {
    for (int i = 0; i < 4; ++i) {
      Bytes b = make_batch(1, 1000 - 70, seg * 4 + i);
      ASSERT_TRUE(log->append(b).ok());
    }
    now += 2000;
  }
  ASSERT_EQ(log->segment_count(), 5u);
  // now = base + 10000. Last writes: base+0, +2000, +4000, +6000, +8000:
  // ages 10000, 8000, 6000, 4000, 2000; the first three are > 5000.
  Result<std::size_t> deleted = log->enforce_retention();
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 3u);
  EXPECT_EQ(log->log_start_offset(), Offset(12));
  now += 100'000;  // everything expired, but the active segment stays
  deleted = log->enforce_retention();
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 1u);
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_EQ(read_batches(*log, log->log_start_offset().value(), 1 << 20).size(), 4u);
}

TEST(PartitionLog, DurableHighWatermarkFollowsFlush) {
  MemoryFileSystem fs;
  LogConfig config = small_config();
  config.flush_policy = FlushPolicy::kDurable;
  auto log = open_log(fs, config);
  Bytes b = make_batch(2, 10, 1);
  ASSERT_TRUE(log->append(b).ok());
  EXPECT_EQ(log->log_end_offset(), Offset(2));
  EXPECT_EQ(log->high_watermark(), Offset(0));
  EXPECT_TRUE(log->read(Offset(0), 100)->empty());
  const uint64_t syncs = fs.sync_count();
  FlushRequest req = log->begin_flush();
  ASSERT_TRUE(req.needed());
  EXPECT_EQ(req.target_offset, Offset(2));
  ASSERT_TRUE(log->finish_flush(req, PartitionLog::run_flush(req)).ok());
  EXPECT_EQ(fs.sync_count(), syncs + 1);
  EXPECT_EQ(log->high_watermark(), Offset(2));
  EXPECT_EQ(log->read(Offset(0), 100)->length, b.size());
  EXPECT_FALSE(log->begin_flush().needed());
}

TEST(PartitionLog, DurableReadsStopAtTheLastFlushedBatch) {
  MemoryFileSystem fs;
  LogConfig config = small_config();
  config.segment_bytes = 1 << 20;  // no roll, which would sync the pending batches
  config.flush_policy = FlushPolicy::kDurable;
  auto log = open_log(fs, config);
  std::vector<Bytes> flushed = append_many(*log, 40, 9);
  ASSERT_TRUE(log->flush().ok());
  std::vector<Bytes> pending = append_many(*log, 5, 99);
  EXPECT_TRUE(testing::SameBatches(read_batches(*log, 0, 1 << 20), flushed));
  EXPECT_TRUE(testing::SameBatches(read_batches(*log, 0, 300), flushed));
  EXPECT_EQ(log->read(log->high_watermark() + 1, 100).status().code(),
            ErrorCode::kOffsetOutOfRange);
  ASSERT_TRUE(log->flush().ok());
  flushed.insert(flushed.end(), pending.begin(), pending.end());
  EXPECT_TRUE(testing::SameBatches(read_batches(*log, 0, 1 << 20), flushed));
}

TEST(PartitionLog, IntervalPolicyFlushesByBytesAndByTime) {
  MemoryFileSystem fs;
  int64_t now = 5'000'000;
  LogConfig config = small_config();
  config.segment_bytes = 1 << 20;
  config.flush_interval_bytes = 3000;
  config.flush_interval_ms = 100;
  auto log = open_log(fs, config, [&] { return now; });
  const uint64_t base_syncs = fs.sync_count();
  Bytes b = make_batch(1, 1000 - 70, 1);
  ASSERT_TRUE(log->append(b).ok());
  ASSERT_TRUE(log->append(b).ok());
  EXPECT_EQ(fs.sync_count(), base_syncs);
  EXPECT_EQ(log->durable_offset(), Offset(0));
  ASSERT_TRUE(log->append(b).ok());  // 3000 bytes: flush
  EXPECT_EQ(fs.sync_count(), base_syncs + 1);
  EXPECT_EQ(log->durable_offset(), Offset(3));
  ASSERT_TRUE(log->append(b).ok());
  ASSERT_TRUE(log->tick().ok());
  EXPECT_EQ(log->durable_offset(), Offset(3));  // not yet 100 ms
  now += 100;
  ASSERT_TRUE(log->tick().ok());
  EXPECT_EQ(log->durable_offset(), Offset(4));
}

TEST(PartitionLog, WritebackRequestsCoverEachAppendedByteOnceAndRestartAfterARoll) {
  MemoryFileSystem fs;
  LogConfig config = small_config();
  config.segment_bytes = 64 * 1024;
  auto log = open_log(fs, config);
  EXPECT_FALSE(log->begin_writeback(1).needed());  // nothing appended yet
  uint64_t covered = 0;                            // in the active segment
  uint64_t segments = log->segment_count();
  uint64_t requests = 0;
  for (int i = 0; i < 400; ++i) {
    Bytes b = make_batch(1 + (i % 3), 100 + (i * 53) % 900, 9 + i);
    ASSERT_TRUE(log->append(b).ok());
    if (log->segment_count() != segments) {  // rolled: the new segment starts at 0
      segments = log->segment_count();
      covered = 0;
    }
    WritebackRequest wb = log->begin_writeback(4096);
    if (!wb.needed()) continue;
    ++requests;
    EXPECT_EQ(wb.offset, covered);  // contiguous, no gap and no overlap
    EXPECT_GE(wb.length, 4096u);
    covered += wb.length;
    EXPECT_TRUE(PartitionLog::run_writeback(wb).ok());
  }
  EXPECT_GT(segments, 3u);
  EXPECT_GT(requests, 20u);
  // Below the threshold nothing is requested; with 1 byte the rest is.
  WritebackRequest rest = log->begin_writeback(1);
  if (rest.needed()) {
    EXPECT_EQ(rest.offset, covered);
  }
  EXPECT_FALSE(log->begin_writeback(1).needed());
}

}  // namespace
}  // namespace spillway::storage
