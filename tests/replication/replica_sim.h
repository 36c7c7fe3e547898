// A simulated replicated partition for deterministic tests: N replicas,
// each a PartitionLog over its own MemoryFileSystem (so one replica can
// lose power alone: what it did not sync is gone) plus its
// LeaderEpochCache, driven by the same pure code the broker's Partition runs
// (replication/leader_state.h, replication/follower_truncation.h), with a
// fake clock and direct calls where the broker has requests: a follower's
// fetch is a call on the leader, the epoch-end question too. The
// "controller" is the test: it elects leaders (bumping the epoch) and
// stores the ISR the leader proposes at once.
//
// Every record acknowledged with acks=all is remembered (offset and bytes)
// so a scenario ends by checking that each one is still there, on every
// live replica, and that the live replicas' logs are identical.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memory_file_system.h"
#include "replication/follower_truncation.h"
#include "replication/leader_state.h"
#include "spillway/common/endian.h"
#include "spillway/common/record_batch.h"
#include "spillway/storage/leader_epoch_cache.h"
#include "spillway/storage/partition_log.h"
#include "test_batches.h"

namespace spillway::broker::replication::testing {

using storage::testing::Bytes;

class ReplicaSim {
 public:
  struct Replica {
    BrokerId id = kNoBroker;
    storage::testing::MemoryFileSystem fs;
    std::unique_ptr<storage::PartitionLog> log;
    std::unique_ptr<storage::LeaderEpochCache> epochs;
    bool alive = false;
    bool leader = false;
    LeaderEpoch epoch{-1};      // the epoch it leads or follows
    bool needs_truncation = false;
    Offset hw{0};               // a follower's view of the HW
    int64_t broker_epoch = 0;   // its registration (bumped at every restart)
  };
  struct Acked {
    Offset offset;
    Bytes batch;  // as stored (base offset and epoch stamped)
  };

  static constexpr int64_t kLagMs = 1000;
  static constexpr char kDir[] = "/data/t/0";

  ReplicaSim(int n, int32_t min_insync = 1) : min_insync_(min_insync) {
    for (int i = 0; i < n; ++i) {
      auto r = std::make_unique<Replica>();
      r->id = i + 1;
      replicas_.push_back(std::move(r));
      replica_ids_.push_back(i + 1);
      open(*replicas_.back());
    }
    isr_ = replica_ids_;
  }

  Replica& replica(BrokerId id) { return *replicas_[static_cast<size_t>(id - 1)]; }
  BrokerId leader_id() const { return leader_; }
  LeaderEpoch epoch() const { return epoch_; }
  const std::vector<BrokerId>& isr() const { return isr_; }
  LeaderState& leader_state() { return leader_state_; }
  int64_t now() const { return now_ms_; }
  void advance(int64_t ms) { now_ms_ += ms; }
  const std::vector<Acked>& acked() const { return acked_; }

  // The controller elects `id` (which must be alive) with a new epoch;
  // every other live replica becomes its follower and must truncate first.
  // `unaware`: replicas cut off from the cluster, which do not learn of the
  // election (a zombie leader keeps its old epoch and role).
  void elect(BrokerId id, std::vector<BrokerId> unaware = {}) {
    epoch_ = LeaderEpoch(epoch_.value() + 1);
    leader_ = id;
    auto told = [&](const Replica& r) {
      return std::find(unaware.begin(), unaware.end(), r.id) == unaware.end();
    };
    for (auto& r : replicas_) {
      if (told(*r)) r->leader = false;
    }
    Replica& l = replica(id);
    ASSERT_TRUE(l.alive);
    l.leader = true;
    l.epoch = epoch_;
    ASSERT_TRUE(l.epochs->assign(epoch_, l.log->log_end_offset()).ok());
    // The ISR stored with the election: the live members of the old one.
    std::vector<BrokerId> isr;
    for (BrokerId m : isr_) {
      if (replica(m).alive && told(replica(m))) isr.push_back(m);
    }
    if (std::find(isr.begin(), isr.end(), id) == isr.end()) isr.push_back(id);
    isr_ = isr;
    leader_state_.begin(id, epoch_, l.log->log_end_offset(), replica_ids_, isr_,
                        std::min(l.hw, l.log->high_watermark()), kLagMs, now_ms_);
    pending_acks_.clear();
    for (auto& r : replicas_) {
      if (r->id == id || !r->alive || !told(*r)) continue;
      r->epoch = epoch_;
      r->needs_truncation = true;
    }
  }

  // acks=all: refused (false) below min_insync; else appended and
  // remembered until the HW covers it. Returns the batch's base offset.
  std::optional<Offset> produce(uint64_t seed, int32_t records = 1) {
    Replica& l = replica(leader_);
    if (!l.alive || !l.leader) return std::nullopt;
    if (static_cast<int32_t>(leader_state_.isr().size()) < min_insync_) return std::nullopt;
    Bytes batch = storage::testing::make_batch(records, 8, seed);
    Result<storage::AppendResult> r = l.log->append(batch, epoch_);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return std::nullopt;
    pending_acks_.push_back(Acked{r->base_offset, batch});
    leader_round();
    return r->base_offset;
  }

  // The leader's own part: HW from its end, acks answered, ISR proposals
  // stored at once by the "controller".
  void leader_round() {
    Replica& l = replica(leader_);
    if (!l.alive || !l.leader) return;
    leader_state_.update_high_watermark(l.log->high_watermark());
    l.hw = leader_state_.high_watermark();
    std::vector<Acked> waiting;
    const bool enough = static_cast<int32_t>(leader_state_.isr().size()) >= min_insync_;
    for (Acked& a : pending_acks_) {
      if (a.offset < l.hw) {
        // Below min_insync when the HW gets there: Kafka's
        // NOT_ENOUGH_REPLICAS_AFTER_APPEND, not acknowledged.
        if (enough) acked_.push_back(std::move(a));
      } else {
        waiting.push_back(std::move(a));
      }
    }
    pending_acks_ = std::move(waiting);
    if (std::optional<std::vector<BrokerId>> change = leader_state_.propose_isr_change(now_ms_)) {
      isr_ = *change;
      leader_state_.isr_stored(*change, now_ms_);
      ++isr_changes_;
    }
  }
  int isr_changes() const { return isr_changes_; }

  // A replica that still believes it leads an older epoch appends a batch
  // in that epoch (no follower can acknowledge it: see fetch_from()).
  Offset zombie_append(BrokerId id, uint64_t seed) {
    Replica& z = replica(id);
    EXPECT_TRUE(z.leader);
    Bytes batch = storage::testing::make_batch(1, 8, seed);
    Result<storage::AppendResult> r = z.log->append(batch, z.epoch);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->base_offset : kNoOffset;
  }
  // A follower's fetch sent to `from` (which may be a zombie): the epoch
  // check replica_read makes (KIP-320).
  ErrorCode fetch_from(BrokerId follower, BrokerId from) {
    const Replica& f = replica(follower);
    const Replica& l = replica(from);
    if (!l.leader) return ErrorCode::kNotLeaderOrFollower;
    if (f.epoch < l.epoch) return ErrorCode::kFencedLeaderEpoch;
    if (f.epoch > l.epoch) return ErrorCode::kUnknownLeaderEpoch;
    return from == leader_ ? fetch(follower) : ErrorCode::kOk;
  }
  // A cut-off replica learns the current state: it follows the leader.
  void rejoin(BrokerId id) {
    Replica& r = replica(id);
    r.leader = false;
    r.epoch = epoch_;
    r.needs_truncation = true;
  }

  // A follower's epoch-end question, answered by the leader (as
  // Partition::epoch_end does).
  std::pair<LeaderEpoch, Offset> epoch_end(LeaderEpoch requested) {
    Replica& l = replica(leader_);
    return l.epochs->end_offset_for(requested, l.log->log_end_offset());
  }

  // The follower's truncation loop; returns the rounds of questions.
  int truncate(Replica& f) {
    int rounds = 0;
    for (;;) {
      const LeaderEpoch ask = epoch_to_ask(f.epochs->entries());
      TruncationStep step;
      if (ask < LeaderEpoch(0)) {
        step = TruncationStep{.truncate_to = f.log->log_start_offset(), .done = true};
      } else {
        ++rounds;
        const auto [e, end] = epoch_end(ask);
        step = next_truncation(f.epochs->entries(), f.log->log_start_offset(),
                               f.log->log_end_offset(), e, end);
      }
      EXPECT_TRUE(f.log->truncate_to(step.truncate_to).ok());
      EXPECT_TRUE(f.epochs->truncate_from_end(f.log->log_end_offset()).ok());
      f.hw = std::min(f.hw, f.log->log_end_offset());
      if (step.done) break;
      if (rounds > 100) {
        ADD_FAILURE() << "truncation does not end";
        break;
      }
    }
    f.needs_truncation = false;
    ++truncation_rounds_;
    return rounds;
  }
  int truncation_rounds() const { return truncation_rounds_; }

  // One fetch of follower `id` from the leader: truncation first when its
  // epoch changed, then the leader records its fetch offset and sends what
  // follows; the follower appends it verbatim. `current` overrides the
  // epoch the follower claims (KIP-320 tests). Returns the error, if any.
  ErrorCode fetch(BrokerId id, std::optional<LeaderEpoch> current = std::nullopt,
                  std::optional<int64_t> broker_epoch = std::nullopt) {
    Replica& f = replica(id);
    Replica& l = replica(leader_);
    if (!f.alive || !l.alive || !l.leader || f.leader) return ErrorCode::kNotLeaderOrFollower;
    const LeaderEpoch claimed = current.value_or(f.epoch);
    if (claimed < epoch_) return ErrorCode::kFencedLeaderEpoch;
    if (claimed > epoch_) return ErrorCode::kUnknownLeaderEpoch;
    const int64_t be = broker_epoch.value_or(f.broker_epoch);
    int64_t& seen = seen_broker_epochs_[id];
    if (be < seen) return ErrorCode::kStaleBrokerEpoch;
    seen = be;
    if (f.needs_truncation) truncate(f);
    const Offset fetch_offset = f.log->log_end_offset();
    if (fetch_offset > l.log->log_end_offset()) return ErrorCode::kOffsetOutOfRange;
    leader_state_.record_fetch(id, fetch_offset, l.log->high_watermark(), now_ms_);
    leader_round();
    if (fetch_offset < l.log->high_watermark()) {
      Result<storage::FileSlice> slice = l.log->read(fetch_offset, 1 << 20);
      EXPECT_TRUE(slice.ok()) << slice.status().message();
      if (!slice.ok()) return slice.status().code();
      Bytes bytes(slice->length);
      EXPECT_TRUE(storage::read_slice(*slice, bytes).ok());
      record_epochs(f, bytes);
      Result<storage::AppendResult> appended = f.log->append_replicated(bytes);
      EXPECT_TRUE(appended.ok()) << appended.status().message();
      if (!appended.ok()) return appended.status().code();
    }
    f.hw = std::min(l.hw, f.log->log_end_offset());
    return ErrorCode::kOk;
  }

  // Every live follower fetches, `n` times.
  void replicate(int n = 2) {
    for (int i = 0; i < n; ++i) {
      for (auto& r : replicas_) {
        if (r->alive && !r->leader) fetch(r->id);
      }
    }
  }

  // Power loss of one replica: what it did not sync is gone; it stays
  // down until restart().
  void crash(BrokerId id) {
    Replica& r = replica(id);
    r.log.reset();
    r.epochs.reset();
    r.fs.simulate_power_loss();
    r.alive = false;
    if (r.leader) {
      r.leader = false;
      pending_acks_.clear();  // their producers get no answer: not acknowledged
    }
  }
  // A clean stop (everything synced) and start: a broker restart.
  void restart_clean(BrokerId id) {
    Replica& r = replica(id);
    ASSERT_TRUE(r.log->close().ok());
    r.log.reset();
    r.epochs.reset();
    r.alive = false;
    r.leader = false;
    restart(id);
  }
  // Starts a crashed replica again, as a follower of the current leader
  // (it truncates before its first fetch).
  void restart(BrokerId id) {
    Replica& r = replica(id);
    open(r);
    r.epoch = epoch_;
    r.needs_truncation = true;
  }
  void flush(BrokerId id) { ASSERT_TRUE(replica(id).log->flush().ok()); }

  // The stored bytes of a replica's whole log.
  Bytes log_bytes(BrokerId id) {
    Replica& r = replica(id);
    Bytes all;
    Offset at = r.log->log_start_offset();
    while (at < r.log->high_watermark()) {
      Result<storage::FileSlice> slice = r.log->read(at, 1 << 20);
      EXPECT_TRUE(slice.ok());
      if (!slice.ok() || slice->empty()) break;
      Bytes bytes(slice->length);
      EXPECT_TRUE(storage::read_slice(*slice, bytes).ok());
      all.insert(all.end(), bytes.begin(), bytes.end());
      at = slice->next_offset;
    }
    return all;
  }

  // The scenario's end: the live replicas hold identical logs, and every
  // acknowledged batch is in them at its offset with its bytes.
  void expect_consistent() {
    std::optional<Bytes> first;
    for (auto& r : replicas_) {
      if (!r->alive) continue;
      Bytes bytes = log_bytes(r->id);
      if (!first) {
        first = bytes;
      } else {
        EXPECT_EQ(bytes, *first) << "replica " << r->id << " differs";
      }
      for (const Acked& a : acked_) {
        Result<storage::FileSlice> slice = r->log->read(a.offset, 1);
        ASSERT_TRUE(slice.ok()) << "replica " << r->id << " lost offset " << a.offset.value();
        ASSERT_EQ(slice->first_offset, a.offset) << "replica " << r->id;
        Bytes stored(slice->length);
        ASSERT_TRUE(storage::read_slice(*slice, stored).ok());
        EXPECT_EQ(std::vector<std::byte>(stored.begin(), stored.begin() + a.batch.size()),
                  stamped(a)) << "replica " << r->id << " offset " << a.offset.value();
      }
    }
  }

 private:
  // The acknowledged batch as the leader stored it.
  Bytes stamped(const Acked& a) const {
    Bytes b = a.batch;
    store_be<int64_t>(b.data() + batch::kBaseOffsetPos, a.offset.value());
    return b;
  }
  void open(Replica& r) {
    storage::LogConfig config;
    config.flush_interval_ms = INT64_MAX / 2;  // syncs only where the scenario says
    config.flush_interval_bytes = UINT64_MAX;
    config.segment_bytes = 4096;  // several segments: truncation across them
    Result<std::unique_ptr<storage::PartitionLog>> log =
        storage::PartitionLog::open(r.fs, kDir, config, [this] { return now_ms_; });
    ASSERT_TRUE(log.ok()) << log.status().message();
    r.log = std::move(*log);
    Result<std::unique_ptr<storage::LeaderEpochCache>> epochs =
        storage::LeaderEpochCache::open(r.fs, kDir);
    ASSERT_TRUE(epochs.ok()) << epochs.status().message();
    r.epochs = std::move(*epochs);
    // As Partition::open_epoch_cache: an epoch past the log end (the log
    // lost its unsynced tail) goes.
    if (!r.epochs->entries().empty() &&
        r.epochs->entries().back().start_offset > r.log->log_end_offset()) {
      ASSERT_TRUE(r.epochs->truncate_from_end(r.log->log_end_offset()).ok());
    }
    r.alive = true;
    r.leader = false;
    r.hw = Offset(0);  // not kept across restarts
    ++r.broker_epoch;
  }

  static void record_epochs(Replica& f, const Bytes& bytes) {
    size_t pos = 0;
    while (pos < bytes.size()) {
      Result<batch::BatchHeader> h =
          batch::parse_header(std::span<const std::byte>(bytes).subspan(pos));
      ASSERT_TRUE(h.ok());
      const LeaderEpoch e(h->partition_leader_epoch);
      if (e > f.epochs->latest_epoch()) {
        ASSERT_TRUE(f.epochs->assign(e, Offset(h->base_offset)).ok());
      }
      pos += h->total_size();
    }
  }

  int32_t min_insync_;
  int64_t now_ms_ = 1'000'000;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<BrokerId> replica_ids_;
  BrokerId leader_ = kNoBroker;
  LeaderEpoch epoch_{-1};
  std::vector<BrokerId> isr_;
  LeaderState leader_state_;
  std::vector<Acked> pending_acks_;
  std::vector<Acked> acked_;
  std::map<BrokerId, int64_t> seen_broker_epochs_;
  int isr_changes_ = 0;
  int truncation_rounds_ = 0;
};

}  // namespace spillway::broker::replication::testing
