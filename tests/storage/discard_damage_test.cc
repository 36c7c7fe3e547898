// PartitionLog::discard_from_damage: a corrupt log that another replica can
// refill drops everything from the first damaged offset on, keeps the
// batches before it byte for byte, appends right after them, and opens
// clean afterwards.
#include <gtest/gtest.h>

#include <map>

#include "log_testing.h"
#include "memory_file_system.h"
#include "spillway/storage/partition_log.h"
#include "spillway/storage/segment.h"

namespace spillway::storage {
namespace {

using testing::Bytes;
using testing::make_batch;
using testing::MemoryFileSystem;
using testing::read_batches;
using Files = std::map<std::string, std::vector<std::byte>>;

constexpr char kDir[] = "/data/t-5";

// A log of 40 batches over several 4 KiB segments, never closed (a crash);
// its files and every batch's stored bytes.
struct Written {
  Files files;
  std::vector<Bytes> batches;
};

Written write_log() {
  Written w;
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, testing::small_log_config());
  EXPECT_TRUE(log.ok());
  for (int i = 0; i < 40; ++i) {
    Bytes b = make_batch(1 + i % 4, 60 + (i * 29) % 200, 100 + i);
    EXPECT_TRUE((*log)->append(b).ok());
    w.batches.push_back(b);
  }
  EXPECT_GE((*log)->segment_count(), 3u);
  const Result<std::vector<std::string>> names = fs.list_dir(kDir);
  for (const auto& n : *names) {
    w.files[std::string(kDir) + "/" + n] = fs.contents(std::string(kDir) + "/" + n);
  }
  return w;
}

std::vector<std::string> segment_logs(const Files& files) {
  std::vector<std::string> logs;
  for (const auto& [path, bytes] : files) {
    if (path.ends_with(".log")) logs.push_back(path);
  }
  return logs;  // a map: by name, so by base offset
}

int64_t base_of(const Bytes& b) {
  return batch::parse_header(b)->base_offset;
}

std::unique_ptr<PartitionLog> open_log(MemoryFileSystem& fs, const Files& files) {
  for (const auto& [path, bytes] : files) fs.set_contents(path, bytes);
  auto log = PartitionLog::open(fs, kDir, testing::small_log_config());
  EXPECT_TRUE(log.ok()) << log.status().to_string();
  return log.ok() ? std::move(*log) : nullptr;
}

// The log holds the first `n` batches of `all` and nothing else, takes the
// next append right after them, and opens again the same, not corrupt.
void expect_refillable_from(MemoryFileSystem& fs, std::unique_ptr<PartitionLog>& log,
                            const std::vector<Bytes>& all, std::size_t n) {
  const std::vector<Bytes> kept(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
  EXPECT_FALSE(log->corrupt());
  EXPECT_TRUE(testing::SameBatches(read_batches(*log, 0, 1 << 20), kept));
  const Offset end(base_of(all[n]));
  EXPECT_EQ(log->log_end_offset(), end);
  Result<AppendResult> appended = log->append_replicated(all[n]);
  ASSERT_TRUE(appended.ok()) << appended.status().to_string();
  EXPECT_EQ(appended->base_offset, end);
  ASSERT_TRUE(log->close().ok());
  log.reset();
  auto again = PartitionLog::open(fs, kDir, testing::small_log_config());
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_FALSE((*again)->corrupt());
  std::vector<Bytes> want = kept;
  want.push_back(all[n]);
  EXPECT_TRUE(testing::SameBatches(read_batches(**again, 0, 1 << 20), want));
}

TEST(DiscardFromDamage, ADamagedSealedSegmentDropsItsBatchAndEverythingAfter) {
  Written w = write_log();
  const std::vector<std::string> logs = segment_logs(w.files);
  ASSERT_GE(logs.size(), 3u);
  // The second batch of the second segment: a byte of its records flipped.
  const Bytes& seg = w.files[logs[1]];
  const int64_t seg_base = Segment::parse_name(logs[1].substr(logs[1].rfind('/') + 1), ".log");
  std::size_t first = 0;
  while (first < w.batches.size() && base_of(w.batches[first]) != seg_base) ++first;
  ASSERT_LT(first + 2, w.batches.size()) << "no batch starts segment " << logs[1];
  const std::size_t damaged = first + 1;
  const std::size_t at = w.batches[first].size() + w.batches[damaged].size() - 5;
  ASSERT_LT(at, seg.size());
  w.files[logs[1]][at] ^= std::byte{0x5a};

  MemoryFileSystem fs;
  auto log = open_log(fs, w.files);
  ASSERT_NE(log, nullptr);
  ASSERT_TRUE(log->corrupt()) << "damage in a sealed segment is decay, not a torn tail";
  Result<Offset> end = log->discard_from_damage();
  ASSERT_TRUE(end.ok()) << end.status().to_string();
  EXPECT_EQ(end->value(), base_of(w.batches[damaged]));
  EXPECT_FALSE(fs.exists(logs[2])) << "segments after the damage go";
  expect_refillable_from(fs, log, w.batches, damaged);
}

TEST(DiscardFromDamage, ALastSegmentShorterThanVerifiedCutsAtItsLastWholeBatch) {
  // What a replica truncated while it was down looks like: after a clean
  // stop the log's bytes were all verified, so a short segment is decay and
  // opens corrupt (recovery_test.cc); discarding cuts at the torn batch.
  Written w = write_log();
  {
    MemoryFileSystem fs;
    auto log = open_log(fs, w.files);
    ASSERT_TRUE(log->close().ok());
    const Result<std::vector<std::string>> names = fs.list_dir(kDir);
    for (const auto& n : *names) {
      w.files[std::string(kDir) + "/" + n] = fs.contents(std::string(kDir) + "/" + n);
    }
  }
  const std::string last = segment_logs(w.files).back();
  w.files[last].resize(w.files[last].size() - w.batches.back().size() - 7);
  MemoryFileSystem fs;
  auto log = open_log(fs, w.files);
  ASSERT_NE(log, nullptr);
  ASSERT_TRUE(log->corrupt());
  Result<Offset> end = log->discard_from_damage();
  ASSERT_TRUE(end.ok()) << end.status().to_string();
  const std::size_t kept = w.batches.size() - 2;  // the second-to-last was torn
  EXPECT_EQ(end->value(), base_of(w.batches[kept]));
  expect_refillable_from(fs, log, w.batches, kept);
}

TEST(DiscardFromDamage, ALogThatIsNotCorruptIsRefused) {
  Written w = write_log();
  MemoryFileSystem fs;
  auto log = open_log(fs, w.files);
  ASSERT_NE(log, nullptr);
  ASSERT_FALSE(log->corrupt());
  EXPECT_EQ(log->discard_from_damage().status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(log->log_end_offset().value(),
            batch::parse_header(w.batches.back())->last_offset() + 1);
}

}  // namespace
}  // namespace spillway::storage
