// Partition's replication methods (replication/replica_role.h,
// docs/replication-partition.md): roles, the leader's follower tracking and
// ISR proposals (LeaderState), acks=all, the follower's verbatim appends and
// truncation, and the leader epoch file. Owner core, like the rest of
// Partition; a standalone partition never runs any of it.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <utility>

#include "core/partition.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/record_batch.h"

namespace spillway::broker {

namespace {

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Offset Partition::visible_end() const {
  switch (role_.load(std::memory_order_relaxed)) {
    case replication::Role::kStandalone:
      return log_->high_watermark();
    case replication::Role::kLeader:
      return replicated_hw_;
    default:
      return std::min(replicated_hw_, log_->log_end_offset());
  }
}

Status Partition::not_leader_error() const {
  return Status(ErrorCode::kNotLeaderOrFollower, "this broker does not lead partition " +
                                                     std::to_string(index_.value()) + " of topic " +
                                                     topic_);
}

Status Partition::leader_epoch_mismatch(LeaderEpoch current, LeaderEpoch mine) const {
  if (current < mine) {
    return Status(ErrorCode::kFencedLeaderEpoch,
                  "partition " + log_name_ + ": leader epoch " + std::to_string(current.value()) +
                      " is older than " + std::to_string(mine.value()));
  }
  if (current > mine) {
    return Status(ErrorCode::kUnknownLeaderEpoch,
                  "partition " + log_name_ + ": leader epoch " + std::to_string(current.value()) +
                      " is newer than " + std::to_string(mine.value()));
  }
  return Status::Ok();
}

Status Partition::check_client_leader_epoch(int32_t current_leader_epoch) const {
  if (current_leader_epoch < 0) return Status::Ok();
  const LeaderEpoch mine = role() == replication::Role::kStandalone
                               ? LeaderEpoch(0)
                               : std::max(leader_epoch(), LeaderEpoch(0));
  return leader_epoch_mismatch(LeaderEpoch(current_leader_epoch), mine);
}

Status Partition::open_epoch_cache() {
  if (epochs_ != nullptr) return Status::Ok();
  // Rebuilt from the batch headers when missing or damaged (each batch
  // carries its epoch); entries outside the log (a crash between a log
  // change and the file's) dropped.
  Result<std::unique_ptr<storage::LeaderEpochCache>> cache =
      storage::LeaderEpochCache::open_or_rebuild(*log_);
  if (!cache.ok()) return cache.status();
  epochs_ = std::move(*cache);
  return Status::Ok();
}

void Partition::become_leader(replication::LeaderRole role) {
  check_on_core(core_);
  if (closed_) return;
  const LeaderEpoch epoch(role.state.leader_epoch);
  if (epoch < leader_epoch()) {
    // Epochs only move forward; an older state arrived late.
    spdlog::warn("partition {}: ignoring leadership of epoch {} (at epoch {})", log_name_,
                 epoch.value(), leader_epoch().value());
    return;
  }
  if (role_.load(std::memory_order_relaxed) == replication::Role::kLeader &&
      epoch == leader_epoch()) {
    // The same term: only the stored state, the registered brokers or the
    // replicas (a partition move) moved.
    min_insync_ = role.min_insync_replicas;
    leader_.set_replicas(role.replicas);
    gauge_replicas_.store(static_cast<int32_t>(role.replicas.size()), std::memory_order_relaxed);
    leader_.set_registered(std::move(role.registered));
    isr_changed(role.state);
    return;
  }
  Status st = open_epoch_cache();
  // The new epoch starts at the log end, before any batch of it is written.
  if (st.ok()) st = epochs_->assign(epoch, log_->log_end_offset());
  if (!st.ok()) {
    spdlog::error("partition {}: cannot lead epoch {}: leader epoch file: {}", log_name_,
                  epoch.value(), st.message());
    become_none();
    return;
  }
  const int64_t now = steady_ms();
  leader_.begin(role.state.leader, epoch, log_->log_end_offset(), role.replicas, role.state.isr,
                std::min(replicated_hw_, log_->high_watermark()), role.replica_lag_time_max_ms,
                now);
  leader_.set_registered(std::move(role.registered));
  stored_state_ = role.state;
  min_insync_ = role.min_insync_replicas;
  gauge_replicas_.store(static_cast<int32_t>(role.replicas.size()), std::memory_order_relaxed);
  gauge_isr_.store(static_cast<int32_t>(role.state.isr.size()), std::memory_order_relaxed);
  gauge_max_lag_.store(0, std::memory_order_relaxed);
  isr_proposed_ms_ = 0;
  leader_epoch_.store(epoch.value(), std::memory_order_release);
  role_.store(replication::Role::kLeader, std::memory_order_release);
  spdlog::info("partition {}: leader for epoch {} from offset {} (ISR {})", log_name_,
               epoch.value(), log_->log_end_offset().value(), role.state.isr.size());
  publish();
}

void Partition::become_follower(replication::FollowerRole role) {
  check_on_core(core_);
  if (closed_) return;
  if (role.leader_epoch < leader_epoch()) {
    spdlog::warn("partition {}: ignoring a follower role of epoch {} (at epoch {})", log_name_,
                 role.leader_epoch.value(), leader_epoch().value());
    return;
  }
  if (Status st = open_epoch_cache(); !st.ok()) {
    spdlog::error("partition {}: cannot follow: leader epoch file: {}", log_name_, st.message());
    become_none();
    return;
  }
  fail_isr_waiters(not_leader_error());
  replicated_hw_ = std::min(replicated_hw_, log_->log_end_offset());
  leader_epoch_.store(role.leader_epoch.value(), std::memory_order_release);
  role_.store(replication::Role::kFollower, std::memory_order_release);
  gauge_replicas_.store(0, std::memory_order_relaxed);  // leads nothing: no gauges
  gauge_isr_.store(0, std::memory_order_relaxed);
  gauge_max_lag_.store(0, std::memory_order_relaxed);
  spdlog::info("partition {}: follower of broker {} in epoch {}", log_name_, role.leader,
               role.leader_epoch.value());
  wake_all_waiters();  // their reads now answer kNotLeaderOrFollower
  publish();
}

void Partition::become_none() {
  check_on_core(core_);
  if (closed_) return;
  fail_isr_waiters(not_leader_error());
  role_.store(replication::Role::kNone, std::memory_order_release);
  gauge_replicas_.store(0, std::memory_order_relaxed);  // leads nothing: no gauges
  gauge_isr_.store(0, std::memory_order_relaxed);
  gauge_max_lag_.store(0, std::memory_order_relaxed);
  wake_all_waiters();
  publish();
}

void Partition::set_isr_writer(replication::IsrWriter writer) {
  check_on_core(core_);
  isr_writer_ = std::move(writer);
}

void Partition::isr_changed(const cluster::PartitionState& state) {
  check_on_core(core_);
  if (closed_ || role_.load(std::memory_order_relaxed) != replication::Role::kLeader ||
      LeaderEpoch(state.leader_epoch) != leader_epoch()) {
    return;  // another term: become_*() follows
  }
  // An older state (a snapshot built before this leader's own write was
  // answered) is not taken: the next compare-and-swap would compare the
  // older revision and fail, every time, until the partition key changed
  // again. A state that is not newer says nothing about a write in flight
  // (whose pending members still bound the HW).
  if (state.mod_revision < stored_state_.mod_revision) return;
  if (leader_.change_in_flight() && state.mod_revision == stored_state_.mod_revision) return;
  if (state.isr.size() < stored_state_.isr.size()) isr_shrinks_.fetch_add(1);
  if (state.isr.size() > stored_state_.isr.size()) isr_expands_.fetch_add(1);
  gauge_isr_.store(static_cast<int32_t>(state.isr.size()), std::memory_order_relaxed);
  stored_state_ = state;
  leader_.isr_stored(state.isr, steady_ms());
  isr_proposed_ms_ = 0;
  publish();
}

void Partition::propose_isr_change(int64_t now_ms) {
  if (!isr_writer_) return;
  const cluster::PartitionKey key{topic_, index_.value()};
  if (leader_.change_in_flight()) {
    // No answer (the cluster thread lost etcd, say): the same proposal
    // again, still in flight, so the HW keeps counting its members.
    if (now_ms - isr_proposed_ms_ > kIsrRetryMs) {
      isr_proposed_ms_ = now_ms;
      isr_writer_(key, stored_state_, *leader_.pending());
    }
    return;
  }
  std::optional<std::vector<BrokerId>> change = leader_.propose_isr_change(now_ms);
  if (!change) return;
  spdlog::info("partition {}: proposing ISR of {} replica(s) (was {})", log_name_, change->size(),
               leader_.isr().size());
  isr_proposed_ms_ = now_ms;
  isr_writer_(key, stored_state_, std::move(*change));
}

void Partition::fail_isr_waiters(const Status& why) {
  for (IsrWaiter& w : isr_waiters_) deliver(w.reply, PartitionReply{.status = why});
  isr_waiters_.clear();
}

void Partition::answer_isr_waiters() {
  // Covered while the ISR is below min_insync_replicas (it shrank after the
  // append): fewer copies than asked for, so not acknowledged (Kafka's
  // NOT_ENOUGH_REPLICAS_AFTER_APPEND).
  const bool enough = leader_.isr().size() >= static_cast<size_t>(min_insync_);
  size_t kept = 0;
  for (IsrWaiter& w : isr_waiters_) {
    if (w.last_offset < replicated_hw_) {
      if (enough) {
        deliver(w.reply, std::move(w.result));
      } else {
        deliver(w.reply, PartitionReply{.status = Status(ErrorCode::kNotEnoughReplicasAfterAppend,
                                                         "partition " + log_name_ +
                                                             ": the ISR shrank below "
                                                             "min.insync.replicas")});
      }
    } else {
      isr_waiters_[kept++] = std::move(w);
    }
  }
  isr_waiters_.erase(isr_waiters_.begin() + static_cast<ptrdiff_t>(kept), isr_waiters_.end());
}

Status Partition::cap_at_high_watermark(storage::FileSlice& slice, Offset hw) {
  if (slice.empty() || slice.next_offset <= hw) return Status::Ok();
  // Walk the slice's batch headers up to the first batch the HW does not
  // cover (a few preads of one header each: the HW is near the end).
  std::array<std::byte, batch::kHeaderSize> header;
  uint64_t pos = slice.position;
  const uint64_t end = slice.position + slice.length;
  Offset next = slice.first_offset;
  while (pos < end) {
    Result<size_t> n = slice.file->read_at(header, pos);
    if (!n.ok()) return n.status();
    if (*n < header.size()) return Status(ErrorCode::kIoError, "short read of a batch header");
    Result<batch::BatchHeader> h = batch::parse_header(header);
    if (!h.ok()) return h.status();
    if (Offset(h->last_offset()) >= hw) break;
    pos += h->total_size();
    next = Offset(h->last_offset() + 1);
  }
  slice.length = std::min(pos, end) - slice.position;
  slice.next_offset = next;
  if (slice.length == 0) slice.file.reset();
  return Status::Ok();
}

void Partition::replica_read(const replication::ReplicaReadRequest& request, Reply reply) {
  check_on_core(core_);
  PartitionReply r;
  r.leader_epoch = leader_epoch();
  const auto fail = [&](Status st) {
    r.status = std::move(st);
    deliver(reply, std::move(r));
  };
  if (closed_) return fail(closed_error());
  if (role_.load(std::memory_order_relaxed) != replication::Role::kLeader) {
    return fail(not_leader_error());
  }
  if (log_->corrupt()) return fail(note_corruption());
  // A fetch from an older registration of the broker (a zombie process
  // that lost its lease) must not move the HW.
  auto seen = std::find_if(broker_epochs_.begin(), broker_epochs_.end(),
                           [&](const auto& e) { return e.first == request.replica; });
  if (seen != broker_epochs_.end() && request.broker_epoch < seen->second) {
    return fail(
        Status(ErrorCode::kStaleBrokerEpoch, "broker " + std::to_string(request.replica) +
                                                 " epoch " + std::to_string(request.broker_epoch) +
                                                 " is older than " + std::to_string(seen->second)));
  }
  if (Status epoch = leader_epoch_mismatch(request.current_leader_epoch, leader_epoch());
      !epoch.ok()) {
    return fail(std::move(epoch));
  }
  if (request.fetch_offset > log_->log_end_offset()) {
    // It has more than the leader: it must truncate first (epoch_end).
    return fail(Status(ErrorCode::kOffsetOutOfRange,
                       "fetch offset " + std::to_string(request.fetch_offset.value()) +
                           " is past the leader's log end " +
                           std::to_string(log_->log_end_offset().value())));
  }
  if (seen == broker_epochs_.end()) {
    broker_epochs_.emplace_back(request.replica, request.broker_epoch);
  } else {
    seen->second = request.broker_epoch;
  }
  const int64_t now = steady_ms();
  // Its fetch offset is what it has; the leader's end here is what this
  // leader can serve (its durable end under `durable`).
  if (!leader_.record_fetch(request.replica, request.fetch_offset, log_->high_watermark(), now)) {
    return fail(
        Status(ErrorCode::kNotLeaderOrFollower,
               "broker " + std::to_string(request.replica) + " is not a replica of " + log_name_));
  }
  publish();  // the HW may move; acks=all waiters answered
  propose_isr_change(now);
  int64_t max_lag = 0;
  for (BrokerId id : stored_state_.isr) {
    const Offset end = leader_.follower_end(id);
    if (end != kNoOffset) max_lag = std::max(max_lag, log_->log_end_offset().value() - end.value());
  }
  gauge_max_lag_.store(max_lag, std::memory_order_relaxed);
  if (request.fetch_offset < log_->high_watermark()) {
    Result<storage::FileSlice> slice = log_->read(request.fetch_offset, request.max_bytes);
    if (!slice.ok()) return fail(log_->corrupt() ? note_corruption() : slice.status());
    r.slice = std::move(*slice);
  }
  r.high_watermark = replicated_hw_;
  r.log_start_offset = log_->log_start_offset();
  deliver(reply, std::move(r));
}

Status Partition::record_epochs(std::span<const std::byte> batches) {
  size_t pos = 0;
  while (pos < batches.size()) {
    Result<batch::BatchHeader> h = batch::parse_header(batches.subspan(pos));
    if (!h.ok()) return h.status();
    if (h->total_size() > batches.size() - pos) {
      return Status(ErrorCode::kCorruptMessage, "a replicated batch is cut short");
    }
    const LeaderEpoch e(h->partition_leader_epoch);
    if (e > epochs_->latest_epoch()) {
      if (Status st = epochs_->assign(e, Offset(h->base_offset)); !st.ok()) return st;
    }
    pos += h->total_size();
  }
  return Status::Ok();
}

void Partition::record_producers(std::span<const std::byte> batches) {
  const int64_t now = wall_ms();
  size_t pos = 0;
  while (pos < batches.size()) {
    Result<batch::BatchHeader> h = batch::parse_header(batches.subspan(pos));
    if (!h.ok()) return;  // checked by record_epochs() already
    if (h->producer_id != ProducerStateTable::kNoProducerId) {
      producers_.record(*h, Offset(h->base_offset), Offset(h->last_offset()), now);
    }
    pos += h->total_size();
  }
}

void Partition::append_replicated(std::span<std::byte> batches, std::byte* rented, Offset leader_hw,
                                  Reply reply) {
  check_on_core(core_);
  PartitionReply r;
  const auto fail = [&](Status st) {
    BufferPool::global().give_back(rented);
    r.status = std::move(st);
    deliver(reply, std::move(r));
  };
  if (closed_) return fail(closed_error());
  if (role_.load(std::memory_order_relaxed) != replication::Role::kFollower) {
    return fail(not_leader_error());
  }
  if (log_->corrupt()) return fail(note_corruption());
  if (!batches.empty()) {
    // The epoch file first: it never lags the log (a crash between the two
    // leaves an epoch starting at the log end, which is harmless).
    if (Status st = record_epochs(batches); !st.ok()) return fail(std::move(st));
    const size_t segments = log_->segment_count();
    Result<storage::AppendResult> appended = log_->append_replicated(batches);
    if (!appended.ok()) {
      Status st = log_->corrupt() ? note_corruption() : appended.status();
      // Epochs of batches that were not written (all, or those after a
      // write error part-way) go again.
      if (Status cut = epochs_->truncate_from_end(log_->log_end_offset()); !cut.ok()) {
        spdlog::warn("partition {}: leader epoch file: {}", log_name_, cut.message());
      }
      publish();
      return fail(std::move(st));
    }
    record_producers(batches);
    size_bytes_.fetch_add(batches.size(), std::memory_order_relaxed);
    r.base_offset = appended->base_offset;
    r.last_offset = appended->last_offset;
    if (log_->segment_count() != segments) {
      check_sealed_segments();
      if (producers_.size() > 0) save_producer_snapshot();
    }
  }
  BufferPool::global().give_back(rented);
  replicated_hw_ = std::min(leader_hw, log_->log_end_offset());
  r.log_start_offset = log_->log_start_offset();
  r.high_watermark = replicated_hw_;
  if (r.last_offset == kNoOffset) r.last_offset = Offset(log_->log_end_offset().value() - 1);
  if (log_->config().flush_policy == storage::FlushPolicy::kDurable &&
      log_->durable_offset() < log_->log_end_offset()) {
    // Under `durable` the follower's fetch offset counts toward the
    // leader's HW, so it must be synced: answered after the fdatasync.
    durable_waiters_.push_back(
        DurableWaiter{.last_offset = Offset(log_->log_end_offset().value() - 1),
                      .reply = std::move(reply),
                      .result = std::move(r)});
    if (!flushing_) start_flush();
    publish();
    return;
  }
  publish();
  deliver(reply, std::move(r));
}

void Partition::truncate_to(Offset end, Reply reply) {
  check_on_core(core_);
  PartitionReply r;
  const replication::Role role = role_.load(std::memory_order_relaxed);
  if (closed_) {
    r.status = closed_error();
  } else if (role != replication::Role::kFollower && role != replication::Role::kNone) {
    r.status = not_leader_error();
  } else if (log_->corrupt()) {
    r.status = note_corruption();
  } else {
    Status st = open_epoch_cache();
    if (st.ok()) st = log_->truncate_to(end);
    // The epoch file even when no batch went: an epoch starting at `end`
    // with nothing in it must go too, or the next question repeats.
    if (st.ok()) st = epochs_->truncate_from_end(log_->log_end_offset());
    if (st.ok()) {
      // The producers' last sequences may name batches that are gone: from
      // the snapshot (ignored when it covers more than the log now has) and
      // the headers after it.
      producers_.clear();
      load_producer_state();
      replicated_hw_ = std::min(replicated_hw_, log_->log_end_offset());
      size_bytes_.store(log_->size_bytes(), std::memory_order_relaxed);
      r.last_offset = Offset(log_->log_end_offset().value() - 1);
      r.log_start_offset = log_->log_start_offset();
      r.high_watermark = visible_end();
    } else {
      r.status = log_->corrupt() ? note_corruption() : std::move(st);
    }
    publish();
  }
  deliver(reply, std::move(r));
}

void Partition::discard_damaged_copy() {
  check_on_core(core_);
  const replication::Role role = role_.load(std::memory_order_relaxed);
  if (closed_ || !log_->corrupt() ||
      (role != replication::Role::kFollower && role != replication::Role::kNone)) {
    return;
  }
  Result<Offset> end = log_->discard_from_damage();
  if (!end.ok()) {
    spdlog::error("partition {}: cannot drop its damaged log to fetch it again: {}", log_name_,
                  end.status().message());
    return;
  }
  // An epoch cache opened now is rebuilt or trimmed to the cut log.
  Status st = epochs_ != nullptr ? epochs_->truncate_from_end(*end) : open_epoch_cache();
  if (!st.ok()) spdlog::warn("partition {}: leader epoch file: {}", log_name_, st.message());
  producers_.clear();
  load_producer_state();
  replicated_hw_ = std::min(replicated_hw_, log_->log_end_offset());
  size_bytes_.store(log_->size_bytes(), std::memory_order_relaxed);
  {
    std::lock_guard lock(corruption_mu_);
    corruption_message_.clear();
    corrupt_.store(false, std::memory_order_release);
  }
  spdlog::warn("partition {}: damaged copy cut to offset {}; fetching the rest from the leader",
               log_name_, end->value());
  publish();
}

void Partition::epoch_end(LeaderEpoch requested, LeaderEpoch current, Reply reply) {
  check_on_core(core_);
  PartitionReply r;
  const replication::Role role = role_.load(std::memory_order_relaxed);
  if (closed_) {
    r.status = closed_error();
  } else if (role == replication::Role::kStandalone || role == replication::Role::kNone) {
    r.status = not_leader_error();
  } else if (Status epoch = current >= LeaderEpoch(0)
                                ? leader_epoch_mismatch(current, leader_epoch())
                                : Status::Ok();
             !epoch.ok()) {
    r.status = std::move(epoch);
  } else if (Status st = open_epoch_cache(); !st.ok()) {
    r.status = std::move(st);
  } else {
    // A follower asks itself for the end of its latest epoch with a request
    // above every epoch (the fetcher's first step after an epoch change);
    // Kafka's endOffsetFor answers UNDEFINED there, which would make the
    // follower throw its whole log away. A leader is never asked for an
    // epoch above its own: current_leader_epoch fences that (above).
    if (role == replication::Role::kFollower && requested > epochs_->latest_epoch()) {
      requested = epochs_->latest_epoch();
    }
    const auto [epoch, end] = epochs_->end_offset_for(requested, log_->log_end_offset());
    r.leader_epoch = epoch;
    r.last_offset = end;
    r.log_start_offset = log_->log_start_offset();
    r.high_watermark = visible_end();
  }
  deliver(reply, std::move(r));
}

}  // namespace spillway::broker
