// PartitionLog::append_replicated and truncate_to (docs/replication-storage.md):
// a follower's append keeps the leader's offsets and epochs and refuses
// gaps, overlaps and damage; truncation cuts at batch starts, mid-segment,
// at segment boundaries, across segments and below the log start, and a
// power loss at any step of it leaves the old log or the truncated one.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "log_testing.h"
#include "memory_file_system.h"
#include "spillway/common/endian.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

using testing::Bytes;
using testing::make_batch;
using testing::MemoryFileSystem;
using testing::read_batches;
using testing::SameBatches;
using testing::small_log_config;
using Files = std::map<std::string, std::vector<std::byte>>;

constexpr char kDir[] = "/data/r-0";

std::unique_ptr<PartitionLog> open_log(MemoryFileSystem& fs,
                                       LogConfig config = small_log_config()) {
  auto log = PartitionLog::open(fs, kDir, config);
  EXPECT_TRUE(log.ok()) << log.status().to_string();
  return log.ok() ? std::move(*log) : nullptr;
}

int32_t epoch_of(const Bytes& b) {
  return batch::parse_header(b)->partition_leader_epoch;
}
int64_t base_of(const Bytes& b) {
  return batch::parse_header(b)->base_offset;
}
int64_t last_of(const Bytes& b) {
  return batch::parse_header(b)->last_offset();
}

// A leader's log of `n` batches over several segments, epochs 1, 1, 2, 2, 3...
std::vector<Bytes> fill(PartitionLog& log, int n, uint64_t seed = 7) {
  for (int i = 0; i < n; ++i) {
    Bytes b = make_batch(1 + i % 4, 60 + (i * 29) % 200, seed + i);
    EXPECT_TRUE(log.append(b, LeaderEpoch(1 + i / 8)).ok());
  }
  return read_batches(log, log.log_start_offset().value(), 1 << 20);
}

Bytes concat(const std::vector<Bytes>& batches, std::size_t from, std::size_t to) {
  Bytes out;
  for (std::size_t i = from; i < to; ++i)
    out.insert(out.end(), batches[i].begin(), batches[i].end());
  return out;
}

std::vector<Bytes> prefix(const std::vector<Bytes>& all, int64_t end) {
  std::vector<Bytes> out;
  for (const Bytes& b : all) {
    if (last_of(b) < end) out.push_back(b);
  }
  return out;
}

Files snapshot(MemoryFileSystem& fs) {
  Files files;
  const Result<std::vector<std::string>> names = fs.list_dir(kDir);
  for (const std::string& n : *names) {
    files[std::string(kDir) + "/" + n] = fs.contents(std::string(kDir) + "/" + n);
  }
  return files;
}

std::vector<int64_t> segment_bases(MemoryFileSystem& fs) {
  std::vector<int64_t> bases;
  const Result<std::vector<std::string>> names = fs.list_dir(kDir);
  for (const std::string& n : *names) {
    if (int64_t b = Segment::parse_name(n, ".log"); b >= 0) bases.push_back(b);
  }
  return bases;
}

// append() takes the batch as a mutable span (it stamps it).
Result<AppendResult> add(PartitionLog& log, Bytes b, LeaderEpoch epoch = LeaderEpoch(0)) {
  return log.append(b, epoch);
}

// ---- append_replicated ----

TEST(AppendReplicated, KeepsOffsetsAndEpochsAndRolls) {
  MemoryFileSystem leader_fs, follower_fs;
  auto leader = open_log(leader_fs);
  const std::vector<Bytes> batches = fill(*leader, 40);
  auto follower = open_log(follower_fs);
  // In chunks of a few batches, as fetch responses bring them.
  for (std::size_t i = 0; i < batches.size(); i += 3) {
    const std::size_t to = std::min(batches.size(), i + 3);
    Result<AppendResult> r = follower->append_replicated(concat(batches, i, to));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->base_offset.value(), base_of(batches[i]));
    EXPECT_EQ(r->last_offset.value(), last_of(batches[to - 1]));
  }
  EXPECT_EQ(follower->log_end_offset(), leader->log_end_offset());
  EXPECT_GT(follower->segment_count(), 2u);
  const std::vector<Bytes> got = read_batches(*follower, 0, 1 << 20);
  EXPECT_TRUE(SameBatches(got, batches));
  EXPECT_EQ(epoch_of(got.back()), 5);
  EXPECT_TRUE(SameBatches(read_batches(*follower, 0, 1), batches));
  // And it survives a restart byte for byte.
  ASSERT_TRUE(follower->close().ok());
  follower = open_log(follower_fs);
  EXPECT_TRUE(SameBatches(read_batches(*follower, 0, 1 << 20), batches));
}

TEST(AppendReplicated, RefusesGapsOverlapsAndDamageWritingNothing) {
  MemoryFileSystem leader_fs, fs;
  auto leader = open_log(leader_fs);
  const std::vector<Bytes> batches = fill(*leader, 10);
  auto log = open_log(fs);
  ASSERT_TRUE(log->append_replicated(concat(batches, 0, 3)).ok());
  const Offset end = log->log_end_offset();
  const uint64_t size = log->size_bytes();
  auto refused = [&](const Bytes& bytes, ErrorCode code, const char* what) {
    Result<AppendResult> r = log->append_replicated(bytes);
    EXPECT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.status().code(), code) << what << ": " << r.status().to_string();
    EXPECT_EQ(log->log_end_offset(), end) << what;
    EXPECT_EQ(log->size_bytes(), size) << what;
  };
  refused(concat(batches, 4, 6), ErrorCode::kInvalidArgument, "gap before the first batch");
  refused(concat(batches, 2, 5), ErrorCode::kInvalidArgument, "overlap");
  Bytes inner_gap = concat(batches, 3, 4);
  Bytes later = concat(batches, 5, 6);
  inner_gap.insert(inner_gap.end(), later.begin(), later.end());
  refused(inner_gap, ErrorCode::kInvalidArgument, "gap between two batches");
  Bytes bad_crc = concat(batches, 3, 5);
  bad_crc[bad_crc.size() - 3] ^= std::byte{0x40};  // in the second batch's records
  refused(bad_crc, ErrorCode::kCorruptMessage, "bad CRC");
  Bytes torn = concat(batches, 3, 5);
  torn.resize(torn.size() - 1);
  refused(torn, ErrorCode::kCorruptMessage, "torn last batch");
  refused(Bytes(), ErrorCode::kInvalidArgument, "nothing");
  ASSERT_TRUE(log->append_replicated(concat(batches, 3, 10)).ok());
  EXPECT_TRUE(SameBatches(read_batches(*log, 0, 1 << 20), batches));
}

TEST(AppendReplicated, DurablePolicyWaitsForTheFlush) {
  MemoryFileSystem leader_fs, fs;
  auto leader = open_log(leader_fs);
  const std::vector<Bytes> batches = fill(*leader, 3);
  auto log = open_log(fs, small_log_config(FlushPolicy::kDurable));
  ASSERT_TRUE(log->append_replicated(concat(batches, 0, 3)).ok());
  EXPECT_EQ(log->durable_offset(), Offset(0));
  EXPECT_EQ(log->high_watermark(), Offset(0));
  FlushRequest request = log->begin_flush();
  ASSERT_TRUE(request.needed());
  ASSERT_TRUE(log->finish_flush(request, PartitionLog::run_flush(request)).ok());
  EXPECT_EQ(log->durable_offset(), log->log_end_offset());
}

// ---- truncate_to ----

struct Truncated {
  std::vector<Bytes> all;
  std::vector<Bytes> kept;
  int64_t end = 0;  // the log end after it
};

// Truncates at `end` and checks the result live, after a crash and after a
// clean restart, and that appends continue at the new end.
void expect_truncation(int64_t end, const std::function<void(PartitionLog&)>& prepare = nullptr) {
  SCOPED_TRACE("truncate_to(" + std::to_string(end) + ")");
  MemoryFileSystem fs;
  auto log = open_log(fs);
  std::vector<Bytes> all = fill(*log, 40);
  if (prepare) prepare(*log);
  all = read_batches(*log, log->log_start_offset().value(), 1 << 20);
  const std::vector<Bytes> kept = prefix(all, end);
  const int64_t new_end =
      kept.empty() ? std::min(end, log->log_start_offset().value()) : last_of(kept.back()) + 1;
  ASSERT_TRUE(log->truncate_to(Offset(end)).ok());
  EXPECT_EQ(log->log_end_offset().value(), new_end);
  EXPECT_EQ(log->durable_offset().value(), new_end);
  EXPECT_TRUE(SameBatches(read_batches(*log, log->log_start_offset().value(), 1 << 20), kept));
  EXPECT_TRUE(SameBatches(read_batches(*log, log->log_start_offset().value(), 1), kept));
  for (int64_t base : segment_bases(fs)) EXPECT_LE(base, new_end);
  EXPECT_EQ(segment_bases(fs).size(), log->segment_count());

  // A crash right after it: exactly the truncated log.
  log.reset();
  fs.simulate_power_loss();
  log = open_log(fs);
  ASSERT_FALSE(log->corrupt());
  EXPECT_EQ(log->log_end_offset().value(), new_end);
  EXPECT_TRUE(SameBatches(read_batches(*log, log->log_start_offset().value(), 1), kept));

  // Appends go on at the new end (other bytes than before), across a
  // clean restart and a crash.
  std::vector<Bytes> now = kept;
  for (int i = 0; i < 12; ++i) {
    Bytes b = make_batch(2, 100, 5000 + i);
    Result<AppendResult> r = log->append(b, LeaderEpoch(9));
    ASSERT_TRUE(r.ok());
    if (i == 0) {
      EXPECT_EQ(r->base_offset.value(), new_end);
    }
  }
  now = read_batches(*log, log->log_start_offset().value(), 1 << 20);
  ASSERT_EQ(now.size(), kept.size() + 12);
  ASSERT_TRUE(log->close().ok());
  log = open_log(fs);
  EXPECT_TRUE(SameBatches(read_batches(*log, log->log_start_offset().value(), 1), now));
  ASSERT_TRUE(log->flush().ok());
  log.reset();
  fs.simulate_power_loss();
  log = open_log(fs);
  EXPECT_FALSE(log->corrupt());
  EXPECT_TRUE(SameBatches(read_batches(*log, log->log_start_offset().value(), 1 << 20), now));
}

TEST(TruncateTo, InTheMiddleOfASegment) {
  MemoryFileSystem fs;
  auto log = open_log(fs);
  const std::vector<Bytes> all = fill(*log, 40);
  const std::vector<int64_t> bases = segment_bases(fs);
  ASSERT_GE(bases.size(), 4u);
  // A batch start, and an offset inside a batch (rounded down to its start).
  const Bytes& mid = *std::find_if(all.begin(), all.end(), [&](const Bytes& b) {
    return base_of(b) > bases[bases.size() - 2] + 2 && last_of(b) > base_of(b);
  });
  expect_truncation(base_of(mid));
  expect_truncation(base_of(mid) + 1);
}

TEST(TruncateTo, AtASegmentBoundaryAndAcrossSegments) {
  MemoryFileSystem fs;
  auto log = open_log(fs);
  fill(*log, 40);
  const std::vector<int64_t> bases = segment_bases(fs);
  ASSERT_GE(bases.size(), 4u);
  expect_truncation(bases[2]);      // the segment goes whole
  expect_truncation(bases[1] + 3);  // several segments go
  expect_truncation(bases[0] + 1);  // into the first batch: empty at the start
}

TEST(TruncateTo, ToOrBelowTheLogStartRestartsEmpty) {
  LogConfig config = small_log_config();
  config.retention_bytes = 3 * 4096;
  auto drop_old = [](PartitionLog& log) {
    Result<std::size_t> deleted = log.enforce_retention();
    ASSERT_TRUE(deleted.ok());
    ASSERT_GT(*deleted, 0u);
  };
  MemoryFileSystem fs;
  auto log = open_log(fs, config);
  fill(*log, 40);
  drop_old(*log);
  const int64_t start = log->log_start_offset().value();
  ASSERT_GT(start, 10);
  for (int64_t end : {start, start - 7, int64_t{0}}) {
    MemoryFileSystem fs2;
    auto l = open_log(fs2, config);
    fill(*l, 40);
    drop_old(*l);
    ASSERT_TRUE(l->truncate_to(Offset(end)).ok());
    EXPECT_EQ(l->log_start_offset().value(), end);
    EXPECT_EQ(l->log_end_offset().value(), end);
    EXPECT_EQ(l->segment_count(), 1u);
    EXPECT_EQ(segment_bases(fs2), std::vector<int64_t>{end});
    Result<AppendResult> r = add(*l, make_batch(1, 10, 1));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->base_offset.value(), end);
    ASSERT_TRUE(l->flush().ok());
    l.reset();
    fs2.simulate_power_loss();
    l = open_log(fs2, config);
    EXPECT_EQ(l->log_start_offset().value(), end);
    EXPECT_EQ(l->log_end_offset().value(), end + 1);
  }
}

TEST(TruncateTo, AtOrPastTheLogEndIsANoOp) {
  MemoryFileSystem fs;
  auto log = open_log(fs);
  const std::vector<Bytes> all = fill(*log, 20);
  const Files before = snapshot(fs);
  const uint64_t changes = fs.change_count();
  ASSERT_TRUE(log->truncate_to(log->log_end_offset()).ok());
  ASSERT_TRUE(log->truncate_to(log->log_end_offset() + 100).ok());
  EXPECT_EQ(fs.change_count(), changes);
  EXPECT_EQ(snapshot(fs), before);
  EXPECT_TRUE(SameBatches(read_batches(*log, 0, 1 << 20), all));
  EXPECT_EQ(log->truncate_to(Offset(-1)).code(), ErrorCode::kInvalidArgument);
}

TEST(TruncateTo, ThenReplicatedAppendsOfAnotherLeader) {
  // The follower's divergent tail goes and the new leader's batches follow.
  MemoryFileSystem leader_fs, fs;
  auto leader = open_log(leader_fs);
  const std::vector<Bytes> batches = fill(*leader, 20);
  auto log = open_log(fs);
  ASSERT_TRUE(log->append_replicated(concat(batches, 0, 12)).ok());
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(add(*log, make_batch(1, 50, 900 + i), LeaderEpoch(1)).ok());
  ASSERT_TRUE(log->truncate_to(Offset(base_of(batches[12]))).ok());
  ASSERT_TRUE(log->append_replicated(concat(batches, 12, 20)).ok());
  EXPECT_TRUE(SameBatches(read_batches(*log, 0, 1 << 20), batches));
}

// The verified point (".verified": magic, segment, position) as stored.
std::pair<int64_t, uint64_t> verified_point(MemoryFileSystem& fs) {
  const std::vector<std::byte> v = fs.contents(std::string(kDir) + "/.verified");
  EXPECT_EQ(v.size(), 28u);
  if (v.size() != 28u) return {-1, 0};
  return {load_be<int64_t>(v.data() + 8), load_be<uint64_t>(v.data() + 16)};
}

TEST(TruncateTo, LowersTheVerifiedPointAndIgnoresStaleChecksFlushesAndWrites) {
  MemoryFileSystem fs;
  auto log = open_log(fs, small_log_config(FlushPolicy::kDurable));
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(add(*log, make_batch(2, 120, i)).ok());
  ASSERT_TRUE(log->flush().ok());
  const std::vector<int64_t> bases = segment_bases(fs);
  ASSERT_GE(bases.size(), 4u);
  // Check every sealed segment but the last; keep that check's write back.
  VerifiedPointWrite stale_write;
  for (;;) {
    std::unique_ptr<SealedSegmentCheck> check = log->next_sealed_check();
    if (!check) break;
    while (!*check->step(1 << 20)) {
    }
    VerifiedPointWrite w = log->finish_sealed_check(*check);
    if (check->base_offset() == bases[bases.size() - 2]) {
      stale_write = w;
      break;
    }
    ASSERT_TRUE(PartitionLog::run_verified_point_write(w).ok());
  }
  ASSERT_TRUE(stale_write.needed());
  std::unique_ptr<SealedSegmentCheck> stale_check = log->sealed_check_from(Offset(bases[1]));
  ASSERT_NE(stale_check, nullptr);
  while (!*stale_check->step(1 << 20)) {
  }
  ASSERT_TRUE(add(*log, make_batch(1, 10, 77)).ok());
  FlushRequest stale_flush = log->begin_flush();
  ASSERT_TRUE(stale_flush.needed());

  const int64_t end = bases[1] + 3;
  ASSERT_TRUE(log->truncate_to(Offset(end)).ok());
  const auto [seg, pos] = verified_point(fs);
  EXPECT_EQ(seg, bases[1]);
  EXPECT_LT(pos, 4096u);
  const int64_t new_end = log->log_end_offset().value();
  // Stale work from before the truncation changes nothing.
  EXPECT_FALSE(log->finish_sealed_check(*stale_check).needed());
  ASSERT_TRUE(PartitionLog::run_verified_point_write(stale_write).ok());
  EXPECT_EQ(verified_point(fs), std::make_pair(seg, pos));
  // (One small batch: a roll would sync, and move the durable offset.)
  ASSERT_TRUE(add(*log, make_batch(3, 90, 300)).ok());
  ASSERT_TRUE(log->finish_flush(stale_flush, PartitionLog::run_flush(stale_flush)).ok());
  EXPECT_EQ(log->durable_offset().value(), new_end);
  EXPECT_EQ(log->high_watermark().value(), new_end);
  for (int i = 1; i < 30; ++i) ASSERT_TRUE(add(*log, make_batch(3, 90, 300 + i)).ok());

  // New bytes where the old verified point was are checked at the next
  // open: a flipped byte in the last batch is cut as a torn tail, not served.
  ASSERT_TRUE(log->flush().ok());
  const std::vector<Bytes> now = read_batches(*log, 0, 1 << 20);
  log.reset();
  const std::vector<int64_t> after = segment_bases(fs);
  const std::string active = Segment::log_path(kDir, after.back());
  std::vector<std::byte> bytes = fs.contents(active);
  bytes[bytes.size() - 5] ^= std::byte{1};
  fs.set_contents(active, bytes);
  log = open_log(fs, small_log_config(FlushPolicy::kDurable));
  EXPECT_FALSE(log->corrupt());
  EXPECT_TRUE(
      SameBatches(read_batches(*log, 0, 1 << 20), std::vector<Bytes>(now.begin(), now.end() - 1)));
}

TEST(TruncateTo, RefusedWhenClosed) {
  MemoryFileSystem fs;
  auto log = open_log(fs);
  fill(*log, 5);
  ASSERT_TRUE(log->close().ok());
  EXPECT_FALSE(log->truncate_to(Offset(2)).ok());
}

TEST(TruncateTo, TornMarkerLeavesTheOldLog) {
  MemoryFileSystem fs;
  auto log = open_log(fs);
  const std::vector<Bytes> all = fill(*log, 20);
  ASSERT_TRUE(log->flush().ok());
  log.reset();
  // What a crash while the marker was written leaves: bytes failing its CRC.
  fs.set_contents(std::string(kDir) + "/.truncate", std::vector<std::byte>(20, std::byte{7}));
  log = open_log(fs);
  EXPECT_FALSE(fs.exists(std::string(kDir) + "/.truncate"));
  EXPECT_TRUE(SameBatches(read_batches(*log, 0, 1 << 20), all));
}

TEST(TruncateTo, AFailedSyncMakesTheLogReadOnlyAndOpenFinishesTheCut) {
  MemoryFileSystem fs;
  auto log = open_log(fs);
  const std::vector<Bytes> all = fill(*log, 40);
  ASSERT_TRUE(log->flush().ok());
  const std::vector<int64_t> bases = segment_bases(fs);
  // The marker is durable, then a later sync fails.
  int syncs = 0;  // (the hook is copied per call: count outside it)
  fs.faults().on_sync = [&fs, &syncs] {
    if (++syncs == 2) fs.faults().fail_sync = true;
  };
  const Status st = log->truncate_to(Offset(bases[1] + 2));
  fs.faults().on_sync = nullptr;
  fs.faults().fail_sync = false;
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(log->read_only());
  EXPECT_FALSE(log->append_replicated(concat(all, 0, 1)).ok());
  log.reset();
  fs.simulate_power_loss();
  log = open_log(fs);
  EXPECT_FALSE(fs.exists(std::string(kDir) + "/.truncate"));
  EXPECT_TRUE(SameBatches(read_batches(*log, 0, 1), prefix(all, bases[1] + 2)));
}

// Power loss after every change a truncation makes: the next open finds
// the old log or the truncated one, whole and readable, never a mix, and
// then appends and reopens normally.
void power_loss_at_every_step(int64_t end, LogConfig config, bool drop_old) {
  SCOPED_TRACE("truncate_to(" + std::to_string(end) + ")");
  MemoryFileSystem origin;
  std::vector<Bytes> all;
  {
    auto log = open_log(origin, config);
    fill(*log, 40);
    if (drop_old) {
      ASSERT_TRUE(log->enforce_retention().ok());
    }
    ASSERT_TRUE(log->flush().ok());
    all = read_batches(*log, log->log_start_offset().value(), 1 << 20);
    log.reset();  // a crash after everything was synced
  }
  origin.simulate_power_loss();
  const Files files = snapshot(origin);
  for (int64_t step = 0;; ++step) {
    SCOPED_TRACE("power loss after change " + std::to_string(step));
    MemoryFileSystem fs;
    for (const auto& [path, bytes] : files) fs.set_contents(path, bytes);
    auto log = open_log(fs, config);
    ASSERT_NE(log, nullptr);
    ASSERT_TRUE(SameBatches(read_batches(*log, log->log_start_offset().value(), 1 << 20), all));
    const int64_t start = log->log_start_offset().value();
    const std::vector<Bytes> kept = prefix(all, end);
    const int64_t new_end = kept.empty() ? std::min(end, start) : last_of(kept.back()) + 1;
    fs.faults().ops_until_crash = step;
    const bool done = log->truncate_to(Offset(end)).ok();
    log.reset();
    fs.faults().ops_until_crash = -1;
    fs.simulate_power_loss();
    log = open_log(fs, config);
    ASSERT_NE(log, nullptr);
    ASSERT_FALSE(log->corrupt());
    const std::vector<Bytes> got = read_batches(*log, log->log_start_offset().value(), 1);
    const bool old = log->log_end_offset() == Offset(last_of(all.back()) + 1);
    if (done) {
      ASSERT_FALSE(old);
    }
    if (old) {
      EXPECT_TRUE(SameBatches(got, all));
      EXPECT_EQ(log->log_start_offset().value(), start);
    } else {
      EXPECT_EQ(log->log_end_offset().value(), new_end);
      EXPECT_TRUE(SameBatches(got, kept));
      if (kept.empty()) {
        EXPECT_EQ(log->log_start_offset().value(), new_end);
      }
    }
    // Going on from there works and survives a clean restart.
    const Offset at = log->log_end_offset();
    Result<AppendResult> r = add(*log, make_batch(2, 40, 4242));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->base_offset, at);
    ASSERT_TRUE(log->close().ok());
    log = open_log(fs, config);
    EXPECT_EQ(log->log_end_offset(), at + 2);
    EXPECT_EQ(read_batches(*log, log->log_start_offset().value(), 1 << 20).size(),
              (old ? all.size() : kept.size()) + 1);
    if (::testing::Test::HasFailure() || done) return;
  }
}

TEST(TruncateToPowerLoss, InTheMiddleOfASegment) {
  MemoryFileSystem fs;
  auto log = open_log(fs);
  fill(*log, 40);
  const std::vector<int64_t> bases = segment_bases(fs);
  power_loss_at_every_step(bases.back() + 3, small_log_config(), false);
}

TEST(TruncateToPowerLoss, AtASegmentBoundaryAndAcrossSegments) {
  MemoryFileSystem fs;
  auto log = open_log(fs);
  fill(*log, 40);
  const std::vector<int64_t> bases = segment_bases(fs);
  power_loss_at_every_step(bases[2], small_log_config(), false);
  power_loss_at_every_step(bases[1] + 2, small_log_config(), false);
}

TEST(TruncateToPowerLoss, BelowTheLogStart) {
  LogConfig config = small_log_config();
  config.retention_bytes = 3 * 4096;
  power_loss_at_every_step(3, config, true);
}

}  // namespace
}  // namespace spillway::storage
