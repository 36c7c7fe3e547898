// Integrity of the partition log (issue 11, defect 2): damage found after a
// clean shutdown or in the middle of a log after a crash is never served and
// never cut away with the valid batches after it; a torn tail is still cut;
// repair removes only the damaged range and later batches keep their
// offsets; verify_reads catches a flipped byte on the read path.
#include <gtest/gtest.h>

#include <map>

#include "log_testing.h"
#include "memory_file_system.h"
#include "spillway/common/endian.h"
#include "spillway/storage/file_system.h"
#include "spillway/storage/partition_log.h"
#include "spillway/storage/repair.h"

namespace spillway::storage {
namespace {

using testing::Bytes;
using testing::make_batch;
using testing::MemoryFileSystem;
using Files = std::map<std::string, std::vector<std::byte>>;

constexpr char kDir[] = "/data/topics/t/0";

LogConfig config() {
  LogConfig c;
  c.segment_bytes = 4096;
  c.index_interval_bytes = 256;
  return c;
}

// Where one stored batch lives.
struct Place {
  std::string path;
  uint64_t position = 0;
  uint64_t size = 0;
  int64_t base_offset = 0;
  int64_t last_offset = 0;
};

// A log of 40 batches over several segments, closed cleanly or crashed
// (destroyed without close()).
struct Written {
  Files files;
  std::vector<Bytes> batches;  // stored bytes, offsets stamped
  std::vector<Place> places;   // batches[i] is at places[i]
  std::size_t segments = 0;
};

Written write_log(bool clean) {
  Written w;
  MemoryFileSystem fs;
  {
    auto log = PartitionLog::open(fs, kDir, config());
    EXPECT_TRUE(log.ok());
    for (int i = 0; i < 40; ++i) {
      Bytes b = make_batch(1 + i % 4, 60 + (i * 29) % 200, 500 + i);
      EXPECT_TRUE((*log)->append(b).ok());
      w.batches.push_back(b);
    }
    w.segments = (*log)->segment_count();
    if (clean) {
      EXPECT_TRUE((*log)->close().ok());
    }
  }
  const auto names = fs.list_dir(kDir);
  for (const auto& n : *names) {
    const std::string path = std::string(kDir) + "/" + n;
    w.files[path] = fs.contents(path);
  }
  std::size_t i = 0;
  for (const auto& [path, bytes] : w.files) {
    if (!path.ends_with(".log")) continue;
    for (uint64_t pos = 0; pos < bytes.size();) {
      auto h = batch::parse_header(std::span(bytes).subspan(pos));
      EXPECT_TRUE(h.ok());
      w.places.push_back(Place{path, pos, h->total_size(), h->base_offset, h->last_offset()});
      EXPECT_TRUE(std::equal(w.batches[i].begin(), w.batches[i].end(), bytes.begin() + pos));
      pos += h->total_size();
      ++i;
    }
  }
  EXPECT_EQ(i, w.batches.size());
  return w;
}

// The index of a batch in the middle of the segment that holds batch `near`
// (neither the first nor the last batch of that segment).
std::size_t middle_batch_of_segment(const Written& w, std::size_t near) {
  std::size_t first = near, last = near;
  while (first > 0 && w.places[first - 1].path == w.places[near].path) --first;
  while (last + 1 < w.places.size() && w.places[last + 1].path == w.places[near].path) ++last;
  EXPECT_GE(last - first, 2u) << "segment too small for a middle batch";
  return (first + last) / 2;
}

std::unique_ptr<PartitionLog> reopen(MemoryFileSystem& fs, const Files& files,
                                     LogConfig c = config()) {
  for (const auto& [path, bytes] : files) fs.set_contents(path, bytes);
  auto log = PartitionLog::open(fs, kDir, c);
  EXPECT_TRUE(log.ok()) << log.status().to_string();
  return log.ok() ? std::move(*log) : nullptr;
}

// Every .log file is byte-identical to `files`' (nothing was cut).
void expect_logs_unchanged(MemoryFileSystem& fs, const Files& files) {
  for (const auto& [path, bytes] : files) {
    if (path.ends_with(".log")) {
      const auto now = fs.contents(path);
      EXPECT_TRUE(now == bytes) << path << " changed: " << bytes.size() << " -> " << now.size()
                                << " bytes";
    }
  }
}

// Reads the whole log from its start following next_offset, tolerating
// offset gaps between batches; returns the stored batches.
std::vector<Bytes> read_all(PartitionLog& log, uint64_t max_bytes = 1 << 20) {
  std::vector<Bytes> out;
  Offset offset = log.log_start_offset();
  while (offset < log.high_watermark()) {
    Result<FileSlice> slice = log.read(offset, max_bytes);
    EXPECT_TRUE(slice.ok()) << "offset " << offset.value() << ": " << slice.status().to_string();
    if (!slice.ok() || slice->empty()) break;
    Bytes bytes(slice->length);
    EXPECT_TRUE(read_slice(*slice, bytes).ok());
    for (std::size_t pos = 0; pos < bytes.size();) {
      auto h = batch::parse_header(std::span(bytes).subspan(pos));
      EXPECT_TRUE(h.ok());
      if (!h.ok()) return out;
      out.emplace_back(bytes.begin() + pos, bytes.begin() + pos + h->total_size());
      pos += h->total_size();
    }
    EXPECT_GT(slice->next_offset, offset);
    offset = slice->next_offset;
  }
  return out;
}

// The partition refuses reads (anywhere) and appends with kCorruptMessage,
// and the error names the damaged offsets and segment but no directory.
void expect_not_served(PartitionLog& log, const Place& damaged, int64_t end_offset) {
  EXPECT_TRUE(log.corrupt());
  for (int64_t offset : {damaged.base_offset, int64_t{0}, damaged.last_offset + 1}) {
    Result<FileSlice> r = log.read(Offset(offset), 1 << 20);
    ASSERT_FALSE(r.ok()) << "offset " << offset << " was served";
    EXPECT_EQ(r.status().code(), ErrorCode::kCorruptMessage);
    const std::string message(r.status().message());
    EXPECT_NE(message.find("[" + std::to_string(damaged.base_offset) + ", " +
                           std::to_string(end_offset) + ")"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(damaged.path.substr(damaged.path.rfind('/') + 1)), std::string::npos)
        << message;
    EXPECT_EQ(message.find("/data"), std::string::npos) << "a path in: " << message;
  }
  Bytes more = make_batch(1, 10, 1);
  Result<AppendResult> appended = log.append(more);
  ASSERT_FALSE(appended.ok());
  EXPECT_EQ(appended.status().code(), ErrorCode::kCorruptMessage);
}

void flip(Files& files, const Place& p, uint64_t at) {
  files[p.path][p.position + at] ^= std::byte{0x02};
}

// Flips byte `at` of batch k of `w` into `fs`, opens the log: corrupt,
// nothing served or cut, no segment deleted. Returns the damaged files.
Files flip_and_expect_not_served(MemoryFileSystem& fs, const Written& w, std::size_t k,
                                 uint64_t at) {
  Files files = w.files;
  flip(files, w.places[k], at);
  auto log = reopen(fs, files);
  EXPECT_NE(log, nullptr);
  if (log == nullptr) return files;
  expect_not_served(*log, w.places[k], w.places[k + 1].base_offset);
  expect_logs_unchanged(fs, files);
  EXPECT_EQ(log->segment_count(), w.segments);
  EXPECT_EQ(log->log_end_offset(), Offset(w.places.back().last_offset + 1));
  return files;
}

// (i) A flipped value byte in a sealed segment after a clean shutdown.
TEST(Integrity, ValueFlipInASealedSegmentAfterCleanShutdownIsNotServed) {
  const Written w = write_log(/*clean=*/true);
  ASSERT_GE(w.segments, 3u);
  const std::size_t k = middle_batch_of_segment(w, 0);
  MemoryFileSystem fs;
  flip_and_expect_not_served(fs, w, k, w.places[k].size - 2);  // the last value byte
}

// (i) The same in the active segment, where the old clean path trusted
// everything written since the last start.
TEST(Integrity, ValueFlipInTheActiveSegmentAfterCleanShutdownIsNotServed) {
  const Written w = write_log(/*clean=*/true);
  const std::size_t k = middle_batch_of_segment(w, w.batches.size() - 1);
  MemoryFileSystem fs;
  flip_and_expect_not_served(fs, w, k, batch::kHeaderSize + 3);
}

// (ii) kill -9, then a corrupt batch in the middle of the active segment:
// the partition is corrupt, nothing is cut, no valid batch is lost.
TEST(Integrity, CorruptBatchMidActiveSegmentAfterCrashLosesNothing) {
  const Written w = write_log(/*clean=*/false);
  const std::size_t k = middle_batch_of_segment(w, w.batches.size() - 1);
  // A CRC-covered byte, the length field, and the base offset.
  for (uint64_t at : {uint64_t{batch::kHeaderSize + 1}, uint64_t{batch::kBatchLengthPos + 3},
                      uint64_t{batch::kBaseOffsetPos + 7}}) {
    SCOPED_TRACE("flip at byte " + std::to_string(at));
    MemoryFileSystem fs;
    const Files files = flip_and_expect_not_served(fs, w, k, at);
    // Still corrupt, still uncut, on the next start.
    auto again = PartitionLog::open(fs, kDir, config());
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE((*again)->corrupt());
    expect_logs_unchanged(fs, files);
  }
}

// (ii) After a crash a damaged sealed segment no longer costs every later
// segment (recovery used to delete them once the damaged one was cut).
TEST(Integrity, DamageInASealedSegmentAfterCrashKeepsLaterSegments) {
  const Written w = write_log(/*clean=*/false);
  const std::size_t k = middle_batch_of_segment(w, 0);
  MemoryFileSystem fs;
  flip_and_expect_not_served(fs, w, k, w.places[k].size / 2);
}

// (iii) A torn tail (damage with no valid batch after it) is still cut and
// the partition serves.
TEST(Integrity, TornTailIsStillCutAndServed) {
  const Written w = write_log(/*clean=*/false);
  const Place& last = w.places.back();
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    Files files = w.files;
    auto& active = files[last.path];
    if (variant == 0) active.resize(last.position + last.size / 2);    // torn write
    if (variant == 1) flip(files, last, last.size - 2);                // garbled last batch
    if (variant == 2) active.insert(active.end(), 300, std::byte{0});  // zeros past the end
    MemoryFileSystem fs;
    auto log = reopen(fs, files);
    ASSERT_NE(log, nullptr);
    EXPECT_FALSE(log->corrupt());
    const std::size_t keep = variant == 2 ? w.batches.size() : w.batches.size() - 1;
    std::vector<Bytes> want(w.batches.begin(), w.batches.begin() + keep);
    EXPECT_TRUE(testing::SameBatches(read_all(*log), want));
    EXPECT_EQ(fs.contents(last.path).size(),
              variant == 2 ? last.position + last.size : last.position);
    Bytes next = make_batch(1, 10, 9);
    ASSERT_TRUE(log->append(next).ok());
  }
}

// (iii) A damaged tail behind a corrupt middle is not cut either: the log
// stays as it was for the operator (and repair).
TEST(Integrity, TornTailAfterMidLogDamageIsLeftForRepair) {
  const Written w = write_log(/*clean=*/false);
  const std::size_t k = middle_batch_of_segment(w, w.batches.size() - 1);
  Files files = w.files;
  flip(files, w.places[k], batch::kHeaderSize + 1);
  files[w.places.back().path].resize(w.places.back().position + 20);
  MemoryFileSystem fs;
  auto log = reopen(fs, files);
  ASSERT_NE(log, nullptr);
  EXPECT_TRUE(log->corrupt());
  expect_logs_unchanged(fs, files);
}

// (iv) Repair cuts out each damaged range; later batches keep their
// original offsets, reads inside a gap return the next batch after it, and
// the log serves, appends and reopens (clean or crashed) with the gaps.
TEST(Integrity, RepairKeepsLaterOffsetsAndReadsAcrossTheGap) {
  const Written w = write_log(/*clean=*/false);
  const std::size_t sealed = middle_batch_of_segment(w, 0);
  const std::size_t active = middle_batch_of_segment(w, w.batches.size() - 1);
  Files files = w.files;
  flip(files, w.places[sealed], w.places[sealed].size - 2);
  flip(files, w.places[active], batch::kBatchLengthPos + 2);
  MemoryFileSystem fs;
  {
    auto log = reopen(fs, files);
    ASSERT_NE(log, nullptr);
    ASSERT_TRUE(log->corrupt());
  }
  Result<RepairReport> report = repair_partition_log(fs, kDir, config());
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  ASSERT_EQ(report->removed.size(), 2u);
  for (std::size_t r = 0; r < 2; ++r) {
    const Place& p = w.places[r == 0 ? sealed : active];
    const Place& after = w.places[(r == 0 ? sealed : active) + 1];
    EXPECT_EQ(report->removed[r].first_offset, p.base_offset);
    EXPECT_EQ(report->removed[r].end_offset, after.base_offset);
    EXPECT_EQ(report->removed[r].length, p.size);
    EXPECT_EQ(report->removed[r].position, p.position);
    EXPECT_EQ(report->removed[r].segment, p.path.substr(p.path.rfind('/') + 1));
  }
  std::vector<Bytes> want;
  for (std::size_t i = 0; i < w.batches.size(); ++i) {
    if (i != sealed && i != active) want.push_back(w.batches[i]);
  }
  const int64_t end = w.places.back().last_offset + 1;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    auto log = PartitionLog::open(fs, kDir, config());
    ASSERT_TRUE(log.ok()) << log.status().to_string();
    ASSERT_FALSE((*log)->corrupt()) << (*log)->corruption()->describe();
    EXPECT_EQ((*log)->log_end_offset(), Offset(end));
    for (uint64_t max_bytes : {uint64_t{1}, uint64_t{1000}, uint64_t{1} << 20}) {
      EXPECT_TRUE(testing::SameBatches(read_all(**log, max_bytes), want)) << max_bytes;
    }
    for (std::size_t k : {sealed, active}) {
      for (int64_t o = w.places[k].base_offset; o <= w.places[k].last_offset; ++o) {
        Result<FileSlice> s = (*log)->read(Offset(o), 1);
        ASSERT_TRUE(s.ok()) << s.status().to_string();
        EXPECT_EQ(s->first_offset, Offset(w.places[k + 1].base_offset)) << "read at " << o;
      }
    }
    if (round == 0) {
      ASSERT_TRUE((*log)->close().ok());  // next round: the clean path
    }
    // round 1 ends in a crash: the next round recovers from it
  }
  auto log = PartitionLog::open(fs, kDir, config());
  ASSERT_TRUE(log.ok());
  Bytes next = make_batch(2, 10, 77);
  Result<AppendResult> r = (*log)->append(next);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->base_offset, Offset(end));
  // Nothing left to repair.
  log->reset();
  Result<RepairReport> again = repair_partition_log(fs, kDir, config());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->removed.empty());
}

// A repair cut short after writing its copies (before cutting the damaged
// segment) leaves a log that is still corrupt; running repair again
// finishes it with the same result.
TEST(Integrity, RepairInterruptedAfterItsCopiesIsFinishedByTheNextRun) {
  const Written w = write_log(/*clean=*/false);
  const std::size_t k = middle_batch_of_segment(w, w.batches.size() - 1);
  Files damaged = w.files;
  flip(damaged, w.places[k], batch::kHeaderSize + 1);
  // The outcome of an uninterrupted repair.
  MemoryFileSystem done_fs;
  for (const auto& [path, bytes] : damaged) done_fs.set_contents(path, bytes);
  Result<RepairReport> done = repair_partition_log(done_fs, kDir, config());
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(done->created_segments.size(), 1u);
  const std::string copy = std::string(kDir) + "/" + done->created_segments[0];
  // The interrupted one: the damaged files plus the copy (partly written).
  for (std::size_t keep : {done_fs.contents(copy).size(), std::size_t{100}}) {
    SCOPED_TRACE("copy of " + std::to_string(keep) + " bytes");
    MemoryFileSystem fs;
    for (const auto& [path, bytes] : damaged) fs.set_contents(path, bytes);
    auto partial = done_fs.contents(copy);
    partial.resize(keep);
    fs.set_contents(copy, partial);
    {
      auto log = PartitionLog::open(fs, kDir, config());
      ASSERT_TRUE(log.ok());
      EXPECT_TRUE((*log)->corrupt());
    }
    Result<RepairReport> again = repair_partition_log(fs, kDir, config());
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_EQ(again->removed.size(), 1u);
    for (const auto& [path, bytes] : damaged) {
      if (path.ends_with(".log")) {
        EXPECT_TRUE(fs.contents(path) == done_fs.contents(path)) << path;
      }
    }
    EXPECT_TRUE(fs.contents(copy) == done_fs.contents(copy));
    auto log = PartitionLog::open(fs, kDir, config());
    ASSERT_TRUE(log.ok());
    EXPECT_FALSE((*log)->corrupt());
    std::vector<Bytes> want = w.batches;
    want.erase(want.begin() + static_cast<std::ptrdiff_t>(k));
    EXPECT_TRUE(testing::SameBatches(read_all(**log), want));
  }
}

// A length field garbled in bytes verified before (so not re-checked at
// open) is found by the first read whose header walk meets it: that read and
// every later one answer kCorruptMessage, and the next open checks there.
TEST(Integrity, GarbledLengthFoundByAReadMakesThePartitionCorrupt) {
  const Written w = write_log(/*clean=*/true);
  MemoryFileSystem fs;
  {
    auto log = reopen(fs, w.files);  // checks everything: the verified point is the end
    ASSERT_NE(log, nullptr);
    ASSERT_TRUE(log->close().ok());
  }
  // The batch at the first index entry of segment 0.
  const std::string index = std::string(kDir) + "/00000000000000000000.index";
  const auto entries = fs.contents(index);
  ASSERT_GE(entries.size(), 8u);
  const uint64_t position = load_be<uint32_t>(entries.data() + 4);
  std::size_t k = 0;
  while (w.places[k].position != position) ++k;
  const std::string first = std::string(kDir) + "/00000000000000000000.log";
  auto bytes = fs.contents(first);
  bytes[position + batch::kBatchLengthPos] = std::byte{0x7f};
  fs.set_contents(first, bytes);

  auto log = PartitionLog::open(fs, kDir, config());
  ASSERT_TRUE(log.ok());
  EXPECT_FALSE((*log)->corrupt()) << "verified bytes are not checked again at open";
  Result<FileSlice> r = (*log)->read(Offset(w.places[k].base_offset), 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kCorruptMessage);
  EXPECT_TRUE((*log)->corrupt());
  EXPECT_FALSE((*log)->read(Offset(0), 100).ok());
  log->reset();
  auto again = PartitionLog::open(fs, kDir, config());
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE((*again)->corrupt());
  EXPECT_EQ((*again)->corruption()->first_offset, w.places[k].base_offset);
}

// (v) verify_reads: a byte flipped on disk after open is caught by the read
// that would have served it; the partition turns corrupt and stays so after
// a restart. Without the switch the bytes go out unchecked (the client's
// CRC check is the last line then).
TEST(Integrity, VerifyReadsCatchesAFlipAfterOpen) {
  for (bool verify : {false, true}) {
    SCOPED_TRACE(verify ? "verify_reads" : "unchecked");
    MemoryFileSystem fs;
    LogConfig c = config();
    c.verify_reads = verify;
    auto log = PartitionLog::open(fs, kDir, c);
    ASSERT_TRUE(log.ok());
    std::vector<Bytes> stored;
    for (int i = 0; i < 30; ++i) {
      Bytes b = make_batch(2, 100, 900 + i);
      ASSERT_TRUE((*log)->append(b).ok());
      stored.push_back(b);
    }
    // Batch 20 sits in the active or a sealed segment; find it on disk.
    const int64_t base = batch::parse_header(stored[20])->base_offset;
    Result<FileSlice> where = (*log)->read(Offset(base), 1);
    ASSERT_TRUE(where.ok());
    std::string path;
    const auto names = fs.list_dir(kDir);
    for (const auto& n : *names) {
      const std::string p = std::string(kDir) + "/" + n;
      if (!n.ends_with(".log")) continue;
      auto bytes = fs.contents(p);
      if (bytes.size() >= where->position + stored[20].size() &&
          std::equal(stored[20].begin(), stored[20].end(), bytes.begin() + where->position)) {
        path = p;
      }
    }
    ASSERT_FALSE(path.empty());
    auto bytes = fs.contents(path);
    bytes[where->position + stored[20].size() - 3] ^= std::byte{0x10};
    fs.set_contents(path, bytes);

    Result<FileSlice> before = (*log)->read(Offset(base), 1 << 20);
    if (!verify) {
      EXPECT_TRUE(before.ok());
      EXPECT_FALSE((*log)->corrupt());
      continue;
    }
    ASSERT_FALSE(before.ok()) << "the flipped batch was served";
    EXPECT_EQ(before.status().code(), ErrorCode::kCorruptMessage);
    EXPECT_NE(std::string(before.status().message()).find(std::to_string(base)), std::string::npos)
        << before.status().message();
    EXPECT_TRUE((*log)->corrupt());
    EXPECT_FALSE((*log)->read(Offset(0), 100).ok());
    // The earlier batches stay intact on disk; a restart (even without the
    // switch, even after a clean close) does not serve the damage.
    (void)(*log)->close();
    log->reset();
    auto again = PartitionLog::open(fs, kDir, config());
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE((*again)->corrupt());
    EXPECT_FALSE((*again)->read(Offset(base), 1 << 20).ok());
  }
}

// Start-up verifies only what was not verified before: the first start
// after writing checks the new bytes, the next one almost nothing.
TEST(Integrity, StartVerifiesOnlyBytesAfterTheVerifiedPoint) {
  MemoryFileSystem fs;
  LogConfig big = config();
  big.segment_bytes = 1 << 20;
  uint64_t log_bytes = 0;
  {
    auto log = PartitionLog::open(fs, kDir, big);
    ASSERT_TRUE(log.ok());
    for (int i = 0; i < 200; ++i) {
      Bytes b = make_batch(2, 1000, i);
      ASSERT_TRUE((*log)->append(b).ok());
    }
    log_bytes = (*log)->size_bytes();
    ASSERT_TRUE((*log)->close().ok());
  }
  uint64_t before = fs.bytes_read();
  {
    auto log = PartitionLog::open(fs, kDir, big);
    ASSERT_TRUE(log.ok());
    EXPECT_GE(fs.bytes_read() - before, log_bytes);  // written since the last start: verified
    ASSERT_TRUE((*log)->close().ok());
  }
  before = fs.bytes_read();
  auto log = PartitionLog::open(fs, kDir, big);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->log_end_offset(), Offset(400));
  EXPECT_LT(fs.bytes_read() - before, log_bytes / 20);
}

// Runs every pending background check of sealed segments to its end, as the
// broker's sync thread does step by step; returns how many ran.
int run_sealed_checks(PartitionLog& log) {
  int checks = 0;
  while (std::unique_ptr<SealedSegmentCheck> check = log.next_sealed_check()) {
    for (;;) {
      Result<bool> done = check->step(1000);
      EXPECT_TRUE(done.ok());
      if (!done.ok() || *done) break;
    }
    EXPECT_TRUE(PartitionLog::run_verified_point_write(log.finish_sealed_check(*check)).ok());
    ++checks;
    if (log.corrupt()) break;
  }
  return checks;
}

// The background check of each sealed segment moves the verified point, so
// a start after a long run checks only the active segment's new bytes.
TEST(Integrity, SealedSegmentChecksKeepTheNextStartShort) {
  MemoryFileSystem fs;
  uint64_t log_bytes = 0;
  uint64_t active_bytes = 0;
  {
    auto log = PartitionLog::open(fs, kDir, config());
    ASSERT_TRUE(log.ok());
    int checks = 0;
    for (int i = 0; i < 120; ++i) {
      Bytes b = make_batch(2, 100, 50 + i);
      ASSERT_TRUE((*log)->append(b).ok());
      checks += run_sealed_checks(**log);
    }
    EXPECT_EQ(static_cast<std::size_t>(checks), (*log)->segment_count() - 1);
    EXPECT_GE(checks, 5);
    log_bytes = (*log)->size_bytes();
    auto names = fs.list_dir(kDir);
    std::string active;
    for (const auto& n : *names) {
      if (n.ends_with(".log")) active = std::max(active, n);
    }
    active_bytes = fs.contents(std::string(kDir) + "/" + active).size();
  }  // a crash
  const uint64_t before = fs.bytes_read();
  auto log = PartitionLog::open(fs, kDir, config());
  ASSERT_TRUE(log.ok());
  EXPECT_FALSE((*log)->corrupt());
  const uint64_t read = fs.bytes_read() - before;
  EXPECT_GE(read, active_bytes);
  EXPECT_LT(read, active_bytes + log_bytes / 10) << "of " << log_bytes;
}

// A sealed segment damaged after it was written is caught by its check.
TEST(Integrity, SealedSegmentCheckFindsDamage) {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config());
  ASSERT_TRUE(log.ok());
  std::vector<Bytes> stored;
  while ((*log)->segment_count() < 2) {
    Bytes b = make_batch(2, 100, stored.size());
    ASSERT_TRUE((*log)->append(b).ok());
    stored.push_back(b);
  }
  const std::string first = std::string(kDir) + "/00000000000000000000.log";
  auto bytes = fs.contents(first);
  bytes[stored[0].size() + stored[1].size() - 5] ^= std::byte{1};  // inside batch 1
  fs.set_contents(first, bytes);
  EXPECT_EQ(run_sealed_checks(**log), 1);
  ASSERT_TRUE((*log)->corrupt());
  EXPECT_EQ((*log)->corruption()->first_offset, 2);
  EXPECT_EQ((*log)->corruption()->end_offset, 4);
  EXPECT_FALSE((*log)->read(Offset(0), 1 << 20).ok());
  log->reset();
  auto again = PartitionLog::open(fs, kDir, config());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE((*again)->corrupt());
}

}  // namespace
}  // namespace spillway::storage
