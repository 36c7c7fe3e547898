// Partition: appends, reads, group-committed durable acks and fetch waiters
// on the owner core.
#include "partition.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <asio/post.hpp>
#include <chrono>
#include <limits>
#include <utility>

#include "core/interval_flush.h"
#include "core/scrub_budget.h"
#include "core/task_pool.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/record_batch.h"

namespace spillway::broker {

Partition::Partition(std::string topic, PartitionId index,
                     std::unique_ptr<storage::PartitionLog> log, CoreSet& cores, size_t core,
                     int64_t flush_interval_ms, int64_t producer_expiration_ms)
    : topic_(std::move(topic)),
      index_(index),
      log_name_(topic_ + "-" + std::to_string(index.value())),
      log_(std::move(log)),
      core_(core),
      owner_(cores.context(core)),
      sync_(cores.sync_context(core)),
      flush_interval_ms_(flush_interval_ms),
      producer_expiration_ms_(producer_expiration_ms) {
  durable_waiters_.reserve(256);
  fetch_waiters_.reserve(64);
  high_watermark_.store(log_->high_watermark().value());
  log_start_.store(log_->log_start_offset().value());
  size_bytes_.store(log_->size_bytes());
  if (log_->corrupt()) {
    (void)note_corruption();
  } else {
    load_producer_state();
  }
}

namespace {

int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Replication's timing (lag, acks=all deadlines): a clock that does not jump.
int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void Partition::load_producer_state() {
  storage::FileSystem& fs = log_->file_system();
  const std::string path = log_->dir() + "/" + kProducerSnapshotFile;
  const Offset log_end = log_->log_end_offset();
  Offset from = log_->log_start_offset();
  bool stale = false;
  if (fs.exists(path)) {
    Result<std::string> bytes = fs.read_file(path);
    Result<Offset> covered = bytes.ok() ? producers_.parse(*bytes) : Result<Offset>(bytes.status());
    if (!covered.ok()) {
      spdlog::warn("partition {}: ignoring the producer state snapshot ({}); reading the log",
                   log_name_, covered.status().message());
    } else if (*covered > log_end) {
      // The log lost its tail after the snapshot was written (a crash
      // before the interval fdatasync): the snapshot may name batches that
      // are gone, so the log alone says what the producers have, and a
      // new snapshot replaces it before those offsets are used again.
      producers_.clear();
      stale = true;
    } else if (*covered > from) {
      from = *covered;
    }
  }
  if (from < log_end) {
    replay_producer_batches(from);
  }
  if (stale) save_producer_snapshot();
}

void Partition::replay_producer_batches(Offset from) {
  const int64_t now = wall_clock_ms();
  size_t batches = 0;
  Status st = log_->for_each_batch_header(from, [&](const batch::BatchHeader& h) {
    producers_.record(h, Offset(h.base_offset), Offset(h.last_offset()), now);
    ++batches;
  });
  if (!st.ok()) {
    spdlog::warn("partition {}: rebuilding the producer state: {}", log_name_, st.message());
  }
  spdlog::debug("partition {}: producer state from offset {}: {} batch header(s), {} producer(s)",
                log_name_, from.value(), batches, producers_.size());
}

void Partition::write_producer_snapshot() {
  check_on_core(core_);
  save_producer_snapshot();
}

void Partition::save_producer_snapshot() {
  if (log_->corrupt()) return;
  const std::string bytes = producers_.serialize(log_->log_end_offset());
  if (Status st = storage::write_file_atomically(log_->file_system(),
                                                 log_->dir() + "/" + kProducerSnapshotFile, bytes);
      !st.ok()) {
    spdlog::warn("partition {}: writing the producer state snapshot: {}", log_name_, st.message());
  }
}

Status Partition::note_corruption() {
  std::lock_guard lock(corruption_mu_);
  if (corruption_message_.empty()) {
    const std::string index = std::to_string(index_.value());
    corruption_message_ = "partition " + index + " of topic " + topic_ +
                          " is corrupt: " + log_->corruption()->describe() +
                          ". It serves nothing until an operator repairs it (spillway-broker "
                          "repair --topic " +
                          topic_ + " --partition " + index + ", with the broker stopped)";
    // The data directory is the log's, less "/topics/<topic>/<partition>".
    std::string data_dir = log_->dir();
    const std::string tail = "/topics/" + topic_ + "/" + index;
    if (data_dir.ends_with(tail)) data_dir.resize(data_dir.size() - tail.size());
    spdlog::error(
        "partition {}-{} is CORRUPT and stopped: {}. To repair: stop the broker, run "
        "`spillway-broker repair --data-dir {} --topic {} --partition {}`, start it again",
        topic_, index, log_->corruption()->describe(), data_dir, topic_, index);
    corrupt_.store(true, std::memory_order_release);
  }
  return Status(ErrorCode::kCorruptMessage, corruption_message_);
}

std::string Partition::corruption_message() const {
  std::lock_guard lock(corruption_mu_);
  return corruption_message_;
}

void Partition::deliver(Reply& reply, PartitionReply result) {
  post_task(*reply.executor,
            [keep = std::move(reply.keep_alive), fn = reply.fn, ctx = reply.ctx,
             index = reply.index, r = std::move(result)]() mutable { fn(ctx, index, r); });
  reply.executor.reset();  // the posted handler is the context's work now
}

Status Partition::closed_error() const {
  return Status(ErrorCode::kUnknownTopic, "topic " + topic_ + " was deleted");
}

void Partition::wake(FetchWaiter& w) {
  post_task(*w.context, [keep = std::move(w.keep_alive), wake = w.wake, ctx = w.ctx,
                         generation = w.generation] { wake(ctx, generation); });
}

void Partition::wake_all_waiters() {
  for (FetchWaiter& w : fetch_waiters_) wake(w);
  fetch_waiters_.clear();
}

void Partition::append(std::span<std::byte> batch, std::byte* rented, AckAfter ack, Reply reply,
                       int64_t timeout_ms) {
  check_on_core(core_);
  PartitionReply r;
  const replication::Role role = role_.load(std::memory_order_relaxed);
  if (closed_ || role == replication::Role::kFollower || role == replication::Role::kNone) {
    BufferPool::global().give_back(rented);
    r.status = closed_ ? closed_error() : not_leader_error();
    deliver(reply, std::move(r));
    return;
  }
  if (ack == AckAfter::kIsr && role == replication::Role::kStandalone) {
    ack = AckAfter::kSync;  // acks=-1 without a cluster: what it always meant
  }
  if (ack == AckAfter::kIsr && leader_.isr().size() < static_cast<size_t>(min_insync_)) {
    // Before the append (Kafka's NOT_ENOUGH_REPLICAS): nothing is written.
    BufferPool::global().give_back(rented);
    r.status = Status(ErrorCode::kNotEnoughReplicas,
                      "partition " + log_name_ + " has " + std::to_string(leader_.isr().size()) +
                          " in-sync replica(s), min.insync.replicas is " +
                          std::to_string(min_insync_));
    deliver(reply, std::move(r));
    return;
  }
  const int64_t deadline = ack == AckAfter::kIsr && timeout_ms > 0
                               ? steady_ms() + timeout_ms
                               : std::numeric_limits<int64_t>::max();
  // The header as the producer sent it; the batch was validated.
  Result<batch::BatchHeader> header = batch::parse_header(batch);
  if (header.ok() && header->producer_id != ProducerStateTable::kNoProducerId && !log_->corrupt()) {
    Result<SequenceCheck> seq = producers_.check(*header);
    if (!seq.ok() || seq->duplicate) {
      BufferPool::global().give_back(rented);
      if (!seq.ok()) {
        r.status = std::move(seq).take_status();
        deliver(reply, std::move(r));
      } else {
        answer_duplicate(seq->original, ack, std::move(reply), deadline);
      }
      return;
    }
  }
  const size_t segments = log_->segment_count();
  // A leader stamps its epoch on every batch (truncation by leader epoch
  // reads it back); a standalone partition keeps epoch 0 as before.
  const LeaderEpoch epoch = role == replication::Role::kLeader
                                ? LeaderEpoch(leader_epoch_.load(std::memory_order_relaxed))
                                : LeaderEpoch(0);
  Result<storage::AppendResult> appended = log_->append(batch, epoch);
  BufferPool::global().give_back(rented);
  if (!appended.ok()) {
    r.status = log_->corrupt() ? note_corruption() : appended.status();
    publish();
    deliver(reply, std::move(r));
    return;
  }
  if (header.ok() && header->producer_id != ProducerStateTable::kNoProducerId) {
    producers_.record(*header, appended->base_offset, appended->last_offset, wall_clock_ms());
  }
  if (log_->segment_count() != segments) {  // it rolled
    check_sealed_segments();
    // The next start replays the log from here on, not from the last
    // snapshot. Written here, on the owner: a small file, once a segment
    // (a write on the sync thread could land after close()'s newer one).
    if (producers_.size() > 0) write_producer_snapshot();
  }
  // A running total (summing the segments is O(segments)); tick() and
  // retention recompute it exactly.
  size_bytes_.fetch_add(batch.size(), std::memory_order_relaxed);
  r.base_offset = appended->base_offset;
  r.last_offset = appended->last_offset;
  r.log_start_offset = log_->log_start_offset();
  if (ack == AckAfter::kIsr) {
    // Answered by publish() once the HW covers it (under `durable` the
    // leader's own end counts only once synced, so the sync starts here).
    isr_waiters_.push_back(IsrWaiter{.last_offset = r.last_offset,
                                     .deadline_ms = deadline,
                                     .reply = std::move(reply),
                                     .result = std::move(r)});
    if (log_->config().flush_policy == storage::FlushPolicy::kDurable && !flushing_ &&
        log_->durable_offset() < log_->log_end_offset()) {
      start_flush();
    }
    publish();
    return;
  }
  const bool durable = ack == AckAfter::kSync;
  const bool needs_sync = durable || log_->config().flush_policy == storage::FlushPolicy::kDurable;
  if (needs_sync && log_->durable_offset() <= r.last_offset) {
    // Under the durable policy readers see only synced data, so even an
    // acks=leader append is published once the sync covers it; the reply
    // itself waits only when the client asked for durable.
    if (durable) {
      durable_waiters_.push_back(DurableWaiter{
          .last_offset = r.last_offset, .reply = std::move(reply), .result = std::move(r)});
    } else {
      deliver(reply, std::move(r));
    }
    if (!flushing_) start_flush();
    publish();
    return;
  }
  publish();
  deliver(reply, std::move(r));
  if (log_->config().flush_policy == storage::FlushPolicy::kInterval) {
    // Start writing back every kWritebackBytes on the sync thread, so the
    // interval fdatasync does not meet a second's worth of dirty pages at
    // once (a burst that stalled both cores for milliseconds, docs/performance.md).
    if (storage::WritebackRequest wb = log_->begin_writeback(kWritebackBytes); wb.needed()) {
      post_task(sync_, [wb = std::move(wb)] {
        if (Status st = storage::PartitionLog::run_writeback(wb); !st.ok()) {
          spdlog::debug("writeback: {}", st.message());  // the fdatasync reports what matters
        }
      });
    }
  }
}

void Partition::answer_duplicate(const ProducerBatch& original, AckAfter ack, Reply reply,
                                 int64_t deadline_ms) {
  // Kafka answers a retry of a cached batch with no error and the offsets
  // the batch got the first time (DUPLICATE_SEQUENCE_NUMBER is what brokers
  // before 1.0 sent; clients treat both as delivered).
  PartitionReply r;
  r.base_offset = Offset(original.base_offset);
  r.last_offset = Offset(original.last_offset);
  r.log_start_offset = log_->log_start_offset();
  if (ack == AckAfter::kIsr && replicated_hw_ <= r.last_offset) {
    // The original may still wait for the ISR: so does the retry.
    isr_waiters_.push_back(IsrWaiter{.last_offset = r.last_offset,
                                     .deadline_ms = deadline_ms,
                                     .reply = std::move(reply),
                                     .result = std::move(r)});
    return;
  }
  if (ack == AckAfter::kSync && log_->durable_offset() <= r.last_offset) {
    // The original may still wait for its fdatasync: so does the retry.
    durable_waiters_.push_back(DurableWaiter{
        .last_offset = r.last_offset, .reply = std::move(reply), .result = std::move(r)});
    if (!flushing_) start_flush();
    return;
  }
  deliver(reply, std::move(r));
}

void Partition::start_flush(IntervalFlush* group) {
  check_on_core(core_);
  storage::FlushRequest request = log_->begin_flush();
  if (!request.needed()) {
    finish_flush(request, Status::Ok());
    return;
  }
  flushing_ = true;
  if (group != nullptr) {
    group->add(shared_from_this(), std::move(request));  // synced with the core's others
    return;
  }
  // The fdatasync runs on the sync thread; appends keep landing here
  // meanwhile and are covered by the next sync.
  post_task(sync_, [self = shared_from_this(), request]() mutable {
    Status st = storage::PartitionLog::run_flush(request);
    post_task(self->owner_, [self, request = std::move(request), st = std::move(st)]() mutable {
      self->finish_flush(request, std::move(st));
    });
  });
}

void Partition::finish_flush(const storage::FlushRequest& request, Status result) {
  check_on_core(core_);
  flushing_ = false;
  Status st = request.needed() ? log_->finish_flush(request, std::move(result)) : Status::Ok();
  if (!st.ok()) spdlog::error("partition {}: flush failed: {}", log_name_, st.message());
  const Offset durable = log_->durable_offset();
  size_t kept = 0;
  for (DurableWaiter& w : durable_waiters_) {
    if (!st.ok()) {
      deliver(w.reply, PartitionReply{.status = st});
    } else if (w.last_offset < durable) {
      deliver(w.reply, std::move(w.result));
    } else {
      durable_waiters_[kept++] = std::move(w);
    }
  }
  durable_waiters_.erase(durable_waiters_.begin() + static_cast<ptrdiff_t>(kept),
                         durable_waiters_.end());
  publish();
  const bool unsynced_durable = log_->config().flush_policy == storage::FlushPolicy::kDurable &&
                                log_->durable_offset() < log_->log_end_offset();
  if (st.ok() && !closed_ && (!durable_waiters_.empty() || unsynced_durable)) start_flush();
}

void Partition::read(Offset offset, uint64_t max_bytes, Reply reply) {
  deliver(reply, read_here(offset, max_bytes));
}

PartitionReply Partition::read_here(Offset offset, uint64_t max_bytes) {
  check_on_core(core_);
  PartitionReply r;
  const replication::Role role = role_.load(std::memory_order_relaxed);
  if (closed_) {
    r.status = closed_error();
  } else if (role == replication::Role::kFollower || role == replication::Role::kNone) {
    r.status = not_leader_error();
  } else {
    const Offset hw = visible_end();
    Result<storage::FileSlice> slice = log_->read(offset, max_bytes);
    if (slice.ok()) {
      r.slice = std::move(*slice);
      // A leader's clients see only what the ISR has (the log's own
      // bound, the durable end under `durable`, already applies).
      if (role == replication::Role::kLeader) {
        if (Status st = cap_at_high_watermark(r.slice, hw); !st.ok()) {
          r.slice = storage::FileSlice();
          r.status = std::move(st);
        }
      }
    } else {
      // A checked read (verify_reads) may have just found the damage.
      r.status = log_->corrupt() ? note_corruption() : slice.status();
    }
    r.log_start_offset = log_->log_start_offset();
    r.high_watermark = hw;
  }
  return r;
}

void Partition::drop_stale_waiters() {
  check_on_core(core_);
  size_t kept = 0;
  for (FetchWaiter& w : fetch_waiters_) {
    if (w.armed->load(std::memory_order_acquire) == w.generation) {
      fetch_waiters_[kept++] = std::move(w);
    }
  }
  fetch_waiters_.erase(fetch_waiters_.begin() + static_cast<ptrdiff_t>(kept), fetch_waiters_.end());
}

void Partition::add_waiter(FetchWaiter waiter) {
  check_on_core(core_);
  // So the list stays as long as the live long polls.
  drop_stale_waiters();
  // Data may have arrived between the fetch's read and this registration.
  const Offset visible = waiter.replica ? log_->high_watermark() : visible_end();
  if (closed_ || stopping_ || visible > waiter.fetch_offset) {
    wake(waiter);
    return;
  }
  fetch_waiters_.push_back(std::move(waiter));
}

void Partition::publish() {
  check_on_core(core_);
  const int64_t log_hw = log_->high_watermark().value();
  if (role_.load(std::memory_order_relaxed) == replication::Role::kLeader) {
    // The leader's own end: its durable end under `durable` (the log's HW).
    leader_.update_high_watermark(Offset(log_hw));
    replicated_hw_ = leader_.high_watermark();
    answer_isr_waiters();
  }
  const int64_t hw = visible_end().value();
  const int64_t before = high_watermark_.exchange(hw, std::memory_order_relaxed);
  const int64_t log_before = std::exchange(published_log_hw_, log_hw);
  log_start_.store(log_->log_start_offset().value(), std::memory_order_relaxed);
  log_end_.store(log_->log_end_offset().value(), std::memory_order_release);
  durable_.store(log_->durable_offset().value(), std::memory_order_relaxed);
  if (fetch_waiters_.empty()) return;
  if (hw != before) {
    for (FetchWaiter& w : fetch_waiters_) {
      if (w.armed->load(std::memory_order_acquire) == w.generation) wake(w);
    }
    fetch_waiters_.clear();
    return;
  }
  if (log_hw == log_before) return;
  // Only the leader's log moved (the HW waits for the followers): the
  // replica fetches are woken, the clients' long polls keep waiting.
  size_t kept = 0;
  for (FetchWaiter& w : fetch_waiters_) {
    if (!w.replica) {
      fetch_waiters_[kept++] = std::move(w);
    } else if (w.armed->load(std::memory_order_acquire) == w.generation) {
      wake(w);
    }
  }
  fetch_waiters_.erase(fetch_waiters_.begin() + static_cast<ptrdiff_t>(kept), fetch_waiters_.end());
}

void Partition::check_sealed_segments() {
  check_on_core(core_);
  if (checking_sealed_ || sealed_checks_failed_ || closed_) return;
  std::unique_ptr<storage::SealedSegmentCheck> check = log_->next_sealed_check();
  if (check == nullptr) return;
  checking_sealed_ = true;
  post_task(sync_, [self = shared_from_this(),
                    check = std::shared_ptr<storage::SealedSegmentCheck>(std::move(check))] {
    self->run_sealed_check(check);
  });
}

void Partition::run_sealed_check(std::shared_ptr<storage::SealedSegmentCheck> check) {
  if (stop_sealed_checks_.load(std::memory_order_relaxed)) return;
  Result<bool> done = check->step(kSealedCheckStepBytes);
  if (done.ok() && !*done) {
    // Requeued behind whatever fdatasync arrived meanwhile.
    post_task(sync_, [self = shared_from_this(), check] { self->run_sealed_check(check); });
    return;
  }
  Status st = done.ok() ? Status::Ok() : done.status();
  post_task(owner_, [self = shared_from_this(), check, st = std::move(st)]() mutable {
    self->finish_sealed_check(*check, std::move(st));
  });
}

void Partition::finish_sealed_check(const storage::SealedSegmentCheck& check, Status result) {
  check_on_core(core_);
  checking_sealed_ = false;
  if (closed_) return;
  if (!result.ok()) {
    sealed_checks_failed_ = true;
    spdlog::warn(
        "partition {}: reading back sealed segment {} failed ({}); no more background "
        "checks until restart (the next start checks it instead)",
        log_name_, check.base_offset(), result.message());
    return;
  }
  storage::VerifiedPointWrite write = log_->finish_sealed_check(check);
  if (log_->corrupt()) {
    (void)note_corruption();
    return;
  }
  if (write.needed()) {
    post_task(sync_, [self = shared_from_this(), write = std::move(write)] {
      if (self->stop_sealed_checks_.load(std::memory_order_relaxed)) return;
      if (Status st = storage::PartitionLog::run_verified_point_write(write); !st.ok()) {
        spdlog::warn("partition {}: recording the verified point: {}", self->log_name_,
                     st.message());
      }
    });
  }
  check_sealed_segments();  // the next one, if several rolled meanwhile
  scrub();
}

void Partition::scrub() {
  check_on_core(core_);
  if (closed_ || checking_sealed_ || scrub_running_ || sealed_checks_failed_ || log_->corrupt() ||
      !ScrubBudget::global().enabled()) {
    return;
  }
  if (scrub_ == nullptr) {
    scrub_ = log_->sealed_check_from(scrub_next_);
    if (scrub_ == nullptr && scrub_next_ > Offset(0)) {
      if (scrub_pass_segments_ > 0) {
        // debug: a small log is passed over every few seconds.
        spdlog::debug("partition {}: scrub pass done: {} sealed segment(s), {} bytes, intact",
                      log_name_, scrub_pass_segments_, scrub_pass_bytes_);
      }
      scrub_pass_segments_ = 0;
      scrub_pass_bytes_ = 0;
      scrub_ = log_->sealed_check_from(Offset(0));  // start over
    }
    if (scrub_ == nullptr) return;  // nothing sealed yet
    scrub_next_ = Offset(scrub_->base_offset()).next();
  }
  const uint64_t granted = ScrubBudget::global().take(kScrubGrantBytes);
  if (granted == 0) return;  // the next tick asks again
  scrub_running_ = true;
  post_task(sync_, [self = shared_from_this(), check = scrub_, granted] {
    self->run_scrub_grant(check, granted);
  });
}

void Partition::run_scrub_grant(std::shared_ptr<storage::SealedSegmentCheck> check, uint64_t left) {
  if (stop_sealed_checks_.load(std::memory_order_relaxed)) return;
  const uint64_t step = std::min(left, kSealedCheckStepBytes);
  Result<bool> done = check->step(step);
  if (done.ok() && !*done && left > step) {
    // Requeued behind whatever fdatasync arrived meanwhile.
    post_task(sync_, [self = shared_from_this(), check, left = left - step] {
      self->run_scrub_grant(check, left);
    });
    return;
  }
  post_task(owner_, [self = shared_from_this(), done = std::move(done)]() mutable {
    self->finish_scrub_grant(std::move(done));
  });
}

void Partition::finish_scrub_grant(Result<bool> done) {
  check_on_core(core_);
  scrub_running_ = false;
  if (closed_ || scrub_ == nullptr) return;
  if (!done.ok()) {
    spdlog::warn("partition {}: scrubbing segment {}: {}; skipping it this pass", log_name_,
                 scrub_->base_offset(), done.status().message());
    scrub_.reset();
    return;
  }
  const uint64_t checked = scrub_->checked_bytes();
  ScrubBudget::global().count_scrubbed(checked - scrub_counted_);
  scrub_pass_bytes_ += checked - scrub_counted_;
  scrub_counted_ = checked;
  if (*done) {
    ++scrub_pass_segments_;
    if (scrub_->damage() != nullptr) {
      ScrubBudget::global().count_damage();
      (void)log_->finish_sealed_check(*scrub_, "the scrubber");  // turns the log corrupt
      if (log_->corrupt()) (void)note_corruption();
    } else {
      spdlog::debug("partition {}: scrubbed segment {} ({} bytes): intact", log_name_,
                    scrub_->base_offset(), scrub_->size());
    }
    scrub_.reset();
    scrub_counted_ = 0;
  }
  scrub();  // on while the budget lasts
}

void Partition::tick(IntervalFlush* interval) {
  check_on_core(core_);
  if (closed_) return;
  check_sealed_segments();
  scrub();
  if (producers_.size() > 0) {
    if (size_t n = producers_.expire(wall_clock_ms(), producer_expiration_ms_); n > 0) {
      spdlog::debug("partition {}: {} idle producer(s) expired", log_name_, n);
    }
  }
  if (Status st = log_->tick(); !st.ok()) {
    spdlog::error("partition {}: interval flush failed: {}", log_name_, st.message());
  }
  if (flush_interval_ms_ > 0 && !flushing_ && log_->durable_offset() < log_->log_end_offset()) {
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
    if (now - last_interval_flush_ms_ >= flush_interval_ms_) {
      last_interval_flush_ms_ = now;
      if (interval != nullptr && !in_interval_group_.has_value()) {
        in_interval_group_ = interval->covers(log_->dir());
      }
      // One sync for every due partition of the core (interval_flush.h).
      start_flush(in_interval_group_.value_or(false) ? interval : nullptr);
    }
  }
  if (role_.load(std::memory_order_relaxed) == replication::Role::kLeader) {
    const int64_t now = steady_ms();
    propose_isr_change(now);
    // acks=all appends the ISR did not cover in the request's time.
    size_t kept = 0;
    for (IsrWaiter& w : isr_waiters_) {
      if (w.deadline_ms <= now) {
        deliver(w.reply, PartitionReply{.status = Status(ErrorCode::kNotEnoughReplicasAfterAppend,
                                                         "partition " + log_name_ +
                                                             ": the in-sync replicas did not "
                                                             "acknowledge the batch in time")});
      } else {
        isr_waiters_[kept++] = std::move(w);
      }
    }
    isr_waiters_.erase(isr_waiters_.begin() + static_cast<ptrdiff_t>(kept), isr_waiters_.end());
  }
  size_bytes_.store(log_->size_bytes(), std::memory_order_relaxed);
  publish();
}

void Partition::enforce_retention() {
  check_on_core(core_);
  if (closed_) return;
  Result<size_t> deleted = log_->enforce_retention();
  if (!deleted.ok()) {
    spdlog::error("partition {}: retention failed: {}", log_name_, deleted.status().message());
  } else if (*deleted > 0) {
    spdlog::info("partition {}: retention deleted {} segment(s)", log_name_, *deleted);
    if (epochs_ != nullptr) {
      if (Status st = epochs_->truncate_from_start(log_->log_start_offset()); !st.ok()) {
        spdlog::warn("partition {}: leader epoch file after retention: {}", log_name_,
                     st.message());
      }
    }
  }
  size_bytes_.store(log_->size_bytes(), std::memory_order_relaxed);
  publish();
}

void Partition::wake_waiters() {
  check_on_core(core_);
  stopping_ = true;
  wake_all_waiters();
}

void Partition::close(Closing why) {
  check_on_core(core_);
  if (why == Closing::kShutdown) {
    begin_shutdown_close().finish();
    return;
  }
  if (closed_) return;
  closed_ = true;
  stop_sealed_checks_.store(true, std::memory_order_relaxed);
  // Its directory is already renamed away and about to go: nothing to write.
  answer_waiters_closed();
}

Partition::ShutdownClose Partition::begin_shutdown_close() {
  check_on_core(core_);
  ShutdownClose out;
  out.name = log_name_;
  if (closed_) return out;
  closed_ = true;
  stop_sealed_checks_.store(true, std::memory_order_relaxed);
  // Written before the log's close, which ends in the clean-shutdown
  // marker: the next start then reads no batch header at all. A partition
  // that never saw an idempotent producer keeps no file; a corrupt log
  // keeps the one it has.
  if (!log_->corrupt() &&
      (producers_.size() > 0 ||
       log_->file_system().exists(log_->dir() + "/" + kProducerSnapshotFile))) {
    out.snapshot = producers_.serialize(log_->log_end_offset());
  }
  out.log = log_.get();
  // Nobody waits for the writes: a durable append still waiting is answered
  // with the error, as it would be after them.
  answer_waiters_closed();
  return out;
}

void Partition::ShutdownClose::finish() {
  if (log == nullptr) return;
  if (snapshot) {
    if (Status st = storage::write_file_atomically(
            log->file_system(), log->dir() + "/" + kProducerSnapshotFile, *snapshot);
        !st.ok()) {
      spdlog::warn("partition {}: writing the producer state snapshot: {}", name, st.message());
    }
  }
  if (Status st = log->close(); !st.ok()) {
    spdlog::warn("partition {}: close: {}", name, st.message());
  }
}

void Partition::answer_waiters_closed() {
  // Everyone still waiting learns the partition is gone.
  for (DurableWaiter& w : durable_waiters_)
    deliver(w.reply, PartitionReply{.status = closed_error()});
  durable_waiters_.clear();
  fail_isr_waiters(closed_error());
  wake_all_waiters();
}

}  // namespace spillway::broker
