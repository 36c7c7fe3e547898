// Partition: one topic partition on its owner core. It wraps the partition's
// PartitionLog and adds what the broker needs around it: group-committed
// durable acknowledgements (the fdatasync runs on the core's sync thread so
// appends keep flowing, and one sync covers every append that arrived
// meanwhile), long-poll fetch waiters woken on append or durable advance, and
// the periodic flush tick and retention.
//
// Threading: every method except the constructor, the names and the atomic
// accessors runs on the owner core's thread (work is posted there; each
// checks it with check_on_core() in builds with SPILLWAY_CHECK_CORES);
// there is no lock on the append path. The blocking work runs on the
// owner's sync thread (runtime/core_set.h). Results go back to the
// requester through a Reply, posted to the requester's executor.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/producer_state.h"
#include "replication/leader_state.h"
#include "replication/replica_role.h"
#include "runtime/core_set.h"
#include "spillway/common/ids.h"
#include "spillway/common/status.h"
#include "spillway/storage/leader_epoch_cache.h"
#include "spillway/storage/partition_log.h"

namespace spillway::broker {

class IntervalFlush;

// What a partition operation reports back; kNoOffset where it does not say.
struct PartitionReply {
  Status status;
  Offset base_offset = kNoOffset;  // appends
  Offset last_offset = kNoOffset;  // appends
  Offset log_start_offset = kNoOffset;
  Offset high_watermark = kNoOffset;  // reads
  LeaderEpoch leader_epoch{-1};       // epoch_end(); the leader's epoch on replica reads
  storage::FileSlice slice = {};      // reads
};

// When an append is acknowledged: once written (readers may see it at once
// under the `interval` policy), or once an fdatasync covers it (acks=2, and
// every append of a `durable` topic is published only then).
// kIsr: acks=all in a replicated cluster: once the high watermark (the
// minimum log end over the ISR) covers the batch.
enum class AckAfter { kWrite, kSync, kIsr };

// Why a partition closes: the broker shuts down (the log is closed cleanly),
// or its topic was deleted (the log is dropped; its files are going).
enum class Closing { kShutdown, kDeleted };

// An io_context executor that counts as outstanding work of its context for
// as long as it exists. A reply owed by another core is not work of the
// requester's context, so without it a stopping core with nothing else to
// do would leave its run() loop before the reply lands, and the request
// would never be answered.
using TrackedExecutor = std::decay_t<decltype(asio::require(
    std::declval<asio::io_context&>().get_executor(), asio::execution::outstanding_work.tracked))>;
inline TrackedExecutor tracked_executor(asio::io_context& context) {
  return asio::require(context.get_executor(), asio::execution::outstanding_work.tracked);
}

// Where to deliver a PartitionReply: fn(ctx, index, reply) runs on
// `executor`'s thread (set it with tracked_executor(); it keeps that
// context running until the reply is delivered). `keep_alive` holds ctx
// alive until then.
struct Reply {
  std::optional<TrackedExecutor> executor;
  std::shared_ptr<void> keep_alive;
  void (*fn)(void* ctx, uint32_t index, PartitionReply& reply) = nullptr;
  void* ctx = nullptr;
  uint32_t index = 0;
};

// A long-poll fetch waiting for data. `armed` holds the generation the fetch
// waits under; a waiter whose generation no longer matches is stale and
// dropped. wake(ctx, generation) is posted to `executor`.
struct FetchWaiter {
  asio::io_context* context = nullptr;
  std::shared_ptr<void> keep_alive;
  const std::atomic<uint64_t>* armed = nullptr;
  uint64_t generation = 0;
  Offset fetch_offset{0};  // woken at once if data at or past it is visible
  // A follower's replica fetch waits for the leader's log (what
  // replica_read() can serve), not for the high watermark.
  bool replica = false;
  void (*wake)(void* ctx, uint64_t generation) = nullptr;
  void* ctx = nullptr;
};

class Partition : public std::enable_shared_from_this<Partition> {
 public:
  // Under the `interval` policy, appended bytes are handed to the kernel's
  // writeback in steps of this size (as RocksDB's bytes_per_sync does).
  static constexpr uint64_t kWritebackBytes = 1u << 20;
  // A sealed segment is read back and checked on the sync thread (so the
  // verified point, and the work of the next start, stays near the active
  // segment; docs/log-storage.md) in steps of this size, between which the
  // fdatasyncs queued meanwhile run.
  static constexpr uint64_t kSealedCheckStepBytes = 1u << 20;
  // The most the scrubber asks the ScrubBudget for at a time.
  static constexpr uint64_t kScrubGrantBytes = 8u << 20;
  // Core `core` of `cores` runs every call; its sync thread runs the
  // blocking fdatasyncs. `cores` must outlive the partition's pending work.
  // `flush_interval_ms` > 0: the `interval` policy's periodic fdatasync,
  // started by tick() and run on the sync thread (the log itself is opened
  // with its own interval flush disabled so an append never blocks on one).
  // `producer_expiration_ms`: idempotent producers idle that long are
  // forgotten (producer_state.h). The producers' state is loaded here: the
  // snapshot beside the log, then the batch headers after its offset.
  Partition(std::string topic, PartitionId index, std::unique_ptr<storage::PartitionLog> log,
            CoreSet& cores, size_t core, int64_t flush_interval_ms = 0,
            int64_t producer_expiration_ms = kDefaultProducerExpirationMs);

  // Kafka's producer.id.expiration.ms default: one day.
  static constexpr int64_t kDefaultProducerExpirationMs = 86'400'000;
  // The producer state snapshot's file name, in the partition's directory.
  static constexpr char kProducerSnapshotFile[] = "producer_state.snapshot";

  const std::string& topic() const { return topic_; }
  PartitionId index() const { return index_; }
  // The owner core: its index in the CoreSet, and its io_context (post the
  // partition's work there).
  size_t core() const { return core_; }
  asio::io_context& owner() const { return owner_; }

  // Appends a validated batch held in a buffer rented from the global
  // BufferPool (`rented` is given back here) and replies after the write or
  // after an fdatasync covering the batch, as `ack` says. A batch with a
  // producer id is checked against the producer's sequences first
  // (producer_state.h): a retry of one of its last five batches is not
  // appended again and is answered with the original offsets (after the
  // same sync), a gap or fenced epoch with the error.
  // kIsr on a leader: kNotEnoughReplicas before the append when the stored
  // ISR is below min_insync_replicas; answered once the high watermark
  // covers the batch, kNotEnoughReplicasAfterAppend when `timeout_ms`
  // (> 0) passes first (checked by tick()), kNotLeaderOrFollower when
  // leadership is lost meanwhile. kIsr on a standalone partition is kSync
  // (what acks=-1 always was). Followers and kNone refuse every append
  // with kNotLeaderOrFollower.
  void append(std::span<std::byte> batch, std::byte* rented, AckAfter ack, Reply reply,
              int64_t timeout_ms = 0);

  // Replication (replication/replica_role.h; docs/replication.md). Owner
  // core. Without a cluster the role stays kStandalone and none of these
  // is called.
  replication::Role role() const { return role_.load(std::memory_order_acquire); }  // any thread
  // Before the partition is published (any thread): a member of a cluster
  // serves nothing (kNone) until the ReplicaManager gives it a role, so no
  // client can append to it as if it were standalone in between.
  void start_unassigned() { role_.store(replication::Role::kNone, std::memory_order_release); }
  LeaderEpoch leader_epoch() const { return LeaderEpoch(leader_epoch_.load(std::memory_order_acquire)); }
  // KIP-320: a client's current_leader_epoch (Kafka Fetch v9+, ListOffsets
  // v4+) against this replica's: -1 is not checked; older is
  // kFencedLeaderEpoch (the client's metadata is stale), newer
  // kUnknownLeaderEpoch (this replica's is). A standalone partition's epoch
  // is 0. Any thread; checked before the role, as Kafka does.
  Status check_client_leader_epoch(int32_t current_leader_epoch) const;
  void become_leader(replication::LeaderRole role);
  void become_follower(replication::FollowerRole role);
  void become_none();
  // The stored partition state after this leader's ISR write (or a newer
  // one from a snapshot with the same leader epoch).
  void isr_changed(const cluster::PartitionState& state);
  // Where the leader's ISR changes go (set once, before become_leader).
  void set_isr_writer(replication::IsrWriter writer);
  // Leader: a follower's fetch (slice, high_watermark, log_start_offset,
  // leader_epoch in the reply).
  void replica_read(const replication::ReplicaReadRequest& request, Reply reply);
  // Follower: appends whole stored batches (held in a rented pool buffer,
  // given back here) verbatim and takes min(leader_hw, log end) as its high
  // watermark; last_offset in the reply.
  void append_replicated(std::span<std::byte> batches, std::byte* rented, Offset leader_hw,
                         Reply reply);
  // Follower: truncates the log (and the epoch cache, producer state) to `end`.
  void truncate_to(Offset end, Reply reply);
  // A corrupt follower that is out of the ISR (the ReplicaManager knows,
  // from the stored partition state) drops its log from the first damaged
  // offset on and fetches it again from the leader, instead of waiting for
  // an operator's repair; the epoch cache and producer state follow the
  // cut. Nothing when the log is not corrupt or this replica leads. See
  // docs/replication.md, "A damaged replica".
  void discard_damaged_copy();
  // OffsetForLeaderEpoch: leader_epoch and last_offset (= end offset) of the
  // largest epoch <= requested; kFencedLeaderEpoch / kUnknownLeaderEpoch when
  // `current` (>= 0) is older / newer than this replica's epoch.
  void epoch_end(LeaderEpoch requested, LeaderEpoch current, Reply reply);
  // The log end offset (follower: where the next fetch starts). Any thread.
  Offset log_end_offset() const { return Offset(log_end_.load(std::memory_order_acquire)); }
  // Everything below it is on disk (an fdatasync of the log, or its core's
  // group sync under `interval`, covered it). Any thread.
  Offset durable_offset() const { return Offset(durable_.load(std::memory_order_relaxed)); }
  // Replication gauges for /metrics (any thread): while leading, the
  // replica and stored-ISR counts and the largest follower lag in records
  // (leader end minus the follower's last fetch offset); counts of stored
  // ISR shrinks and expansions while this replica led.
  struct ReplicationGauges {
    int32_t replicas = 0;  // 0 when not leading
    int32_t isr = 0;
    int64_t max_lag = 0;
    uint64_t isr_shrinks = 0;
    uint64_t isr_expands = 0;
  };
  ReplicationGauges replication_gauges() const {
    return {.replicas = gauge_replicas_.load(std::memory_order_relaxed),
            .isr = gauge_isr_.load(std::memory_order_relaxed),
            .max_lag = gauge_max_lag_.load(std::memory_order_relaxed),
            .isr_shrinks = isr_shrinks_.load(std::memory_order_relaxed),
            .isr_expands = isr_expands_.load(std::memory_order_relaxed)};
  }

  // Reads whole stored batches from `offset` (PartitionLog::read semantics)
  // and replies with the slice and the current offsets.
  void read(Offset offset, uint64_t max_bytes, Reply reply);
  // The same read, answered here: for a caller already on the owner core
  // (a fetch whose connection lives there), whose answer then leaves
  // without a post between the read and the response.
  PartitionReply read_here(Offset offset, uint64_t max_bytes);

  // Registers a long-poll waiter, woken by the next append (or durable
  // advance) that makes new data visible. Stale waiters are dropped here.
  void add_waiter(FetchWaiter waiter);
  // Drops the waiters whose fetch has been answered meanwhile (by its timer
  // or by another partition). Each holds its connection alive, so a fetch
  // that stops waiting without this partition's data asks for this.
  void drop_stale_waiters();

  // Timer hooks: the interval flush, the start of the background check of
  // sealed segments (see below) and retention. A due interval flush joins
  // `interval` (the core's group, interval_flush.h) when the log lies on
  // its file system; without a group it is synced on its own.
  void tick(IntervalFlush* interval = nullptr);
  void enforce_retention();

  // Wakes every long-poll waiter now (they answer with what there is): the
  // broker is stopping and must not hold connections for max_wait_ms.
  void wake_waiters();

  // Stops accepting work, answers the appends waiting for an fdatasync and
  // wakes the long polls; at shutdown closes the log cleanly, a deleted
  // topic's log is just dropped. Later calls answer kUnknownTopic.
  // Idempotent.
  void close(Closing why);

  // close(Closing::kShutdown) in two steps, so that a broker's shutdown can
  // run the slow part of many partitions at once (TopicRegistry::close_all):
  // each partition's close costs several fdatasync and fsync calls, and
  // issued from many threads the kernel merges their waits for the disk.
  // begin_shutdown_close() (owner core, or the thread acting as its owner
  // once the core has ended) does all of close() but the writes and returns
  // them; finish() then writes the producer state snapshot and closes the
  // log cleanly, on any thread, one thread per partition.
  struct ShutdownClose {
    std::string name;         // for log lines
    storage::PartitionLog* log = nullptr;  // null: nothing to write
    std::optional<std::string> snapshot;  // the producer state, when kept
    void finish();
  };
  ShutdownClose begin_shutdown_close();

  // The idempotent producers' state (owner core only; tests).
  const ProducerStateTable& producer_state() const { return producers_; }
  // Writes the producer state snapshot now (owner core; at clean close and
  // when the log rolls a segment). Errors are logged: without a snapshot
  // the next start reads more of the log, nothing is lost.
  void write_producer_snapshot();

  // Readable from any thread (metadata, metrics).
  Offset high_watermark() const { return Offset(high_watermark_.load(std::memory_order_relaxed)); }
  // True once the log was found damaged (at open, or by a checked read);
  // the partition then answers produce and fetch with kCorruptMessage.
  bool corrupt() const { return corrupt_.load(std::memory_order_acquire); }
  // The client-facing description of the damage ("" when not corrupt):
  // topic, partition, offsets and segment file, no directory.
  std::string corruption_message() const;
  Offset log_start_offset() const { return Offset(log_start_.load(std::memory_order_relaxed)); }
  uint64_t size_bytes() const { return size_bytes_.load(std::memory_order_relaxed); }

 private:
  struct DurableWaiter {
    Offset last_offset;
    Reply reply;
    PartitionReply result;
  };
  // An acks=all append waiting for the high watermark.
  struct IsrWaiter {
    Offset last_offset;
    int64_t deadline_ms;  // steady clock; INT64_MAX: none
    Reply reply;
    PartitionReply result;
  };
  // Replication helpers (partition.cc, "Replication").
  Offset visible_end() const;  // what clients may read: the HW unless standalone
  Status not_leader_error() const;
  Status open_epoch_cache();       // at the first role change
  void fail_isr_waiters(const Status& why);
  void answer_isr_waiters();       // those the HW covers
  void propose_isr_change(int64_t now_ms);
  Status record_epochs(std::span<const std::byte> batches);  // follower: epochs of new batches
  void record_producers(std::span<const std::byte> batches);  // follower: idempotence state
  // kFencedLeaderEpoch when `current` is older than `mine`,
  // kUnknownLeaderEpoch when newer (KIP-320): the one comparison behind
  // replica reads, epoch_end and clients' checks.
  Status leader_epoch_mismatch(LeaderEpoch current, LeaderEpoch mine) const;
  // Cuts a leader's client read at the high watermark (whole batches).
  Status cap_at_high_watermark(storage::FileSlice& slice, Offset hw);
  static void deliver(Reply& reply, PartitionReply result);
  // Posts the long poll's wake-up to its connection's core.
  static void wake(FetchWaiter& waiter);
  // Wakes every fetch waiter and forgets them.
  void wake_all_waiters();
  // The end of every close: durable waiters and ISR waiters get the closed
  // error, long polls wake.
  void answer_waiters_closed();
  // Replies to a retried batch that is already in the log.
  void answer_duplicate(const ProducerBatch& original, AckAfter ack, Reply reply,
                        int64_t deadline_ms);
  // Loads the snapshot and replays the batch headers after it (constructor).
  void load_producer_state();
  void replay_producer_batches(Offset from);
  // write_producer_snapshot() without the core check (also the constructor's).
  void save_producer_snapshot();
  // Syncs the log on the sync thread, or as part of `group` when given.
  void start_flush(IntervalFlush* group = nullptr);
  // Owner; IntervalFlush calls it with its group's result for this log.
  void finish_flush(const storage::FlushRequest& request, Status result);
  friend class IntervalFlush;
  void publish();  // refresh the atomics; wake fetch waiters if data became visible
  Status closed_error() const;
  // Publishes the log's corrupt state (once) and returns the error to send.
  Status note_corruption();
  // Starts the background check of the next unchecked sealed segment, if
  // there is one and none runs (owner); the steps run on the sync thread.
  void check_sealed_segments();
  void run_sealed_check(std::shared_ptr<storage::SealedSegmentCheck> check);  // sync thread
  void finish_sealed_check(const storage::SealedSegmentCheck& check, Status result);
  // The scrubber (ScrubBudget): re-checks the sealed segments one after the
  // other, in grants of the broker-wide byte rate, when no check of a newly
  // sealed segment is due. Owner; the reading runs on the sync thread.
  void scrub();
  void run_scrub_grant(std::shared_ptr<storage::SealedSegmentCheck> check, uint64_t left);
  void finish_scrub_grant(Result<bool> done);

  const std::string topic_;
  const PartitionId index_;
  const std::string log_name_;  // "topic-index", for log lines
  std::unique_ptr<storage::PartitionLog> log_;
  const size_t core_;
  asio::io_context& owner_;
  asio::io_context& sync_;
  const int64_t flush_interval_ms_;
  const int64_t producer_expiration_ms_;
  ProducerStateTable producers_;
  int64_t last_interval_flush_ms_ = 0;
  // Whether the log lies on the interval group's file system (asked once).
  std::optional<bool> in_interval_group_;
  bool flushing_ = false;
  bool closed_ = false;
  bool stopping_ = false;  // wake_waiters() ran: later waiters are woken at once
  std::vector<DurableWaiter> durable_waiters_;
  std::vector<FetchWaiter> fetch_waiters_;
  // Replication state (owner core). kStandalone uses none of it.
  std::unique_ptr<storage::LeaderEpochCache> epochs_;  // opened at the first role change
  replication::LeaderState leader_;                    // while kLeader
  replication::IsrWriter isr_writer_;
  cluster::PartitionState stored_state_;  // the partition key's value this leader knows
  int32_t min_insync_ = 1;
  int64_t isr_proposed_ms_ = 0;  // when the ISR change in flight was (re)sent
  // An ISR write with no answer this long is sent again.
  static constexpr int64_t kIsrRetryMs = 5'000;
  Offset replicated_hw_{0};      // leader: LeaderState's HW; follower: min(leader's HW, log end)
  int64_t published_log_hw_ = 0;  // log_->high_watermark() at the last publish()
  std::vector<std::pair<BrokerId, int64_t>> broker_epochs_;  // newest seen per replica
  std::vector<IsrWaiter> isr_waiters_;
  std::atomic<replication::Role> role_{replication::Role::kStandalone};
  std::atomic<int32_t> leader_epoch_{-1};
  std::atomic<int32_t> gauge_replicas_{0};
  std::atomic<int32_t> gauge_isr_{0};
  std::atomic<int64_t> gauge_max_lag_{0};
  std::atomic<uint64_t> isr_shrinks_{0};
  std::atomic<uint64_t> isr_expands_{0};
  std::atomic<int64_t> log_end_{0};
  std::atomic<int64_t> durable_{0};
  std::atomic<int64_t> high_watermark_{0};
  std::atomic<int64_t> log_start_{0};
  std::atomic<uint64_t> size_bytes_{0};
  std::atomic<bool> corrupt_{false};
  bool checking_sealed_ = false;                        // a sealed-segment check runs
  bool sealed_checks_failed_ = false;                   // one could not read: no more until restart
  std::atomic<bool> stop_sealed_checks_{false};         // set by close()
  std::shared_ptr<storage::SealedSegmentCheck> scrub_;  // the segment being re-checked
  bool scrub_running_ = false;                          // a grant is being read
  Offset scrub_next_{0};           // re-check the first sealed segment at or after this
  uint64_t scrub_counted_ = 0;     // bytes of scrub_ already counted
  uint64_t scrub_pass_bytes_ = 0;  // this pass over the log so far
  size_t scrub_pass_segments_ = 0;
  mutable std::mutex corruption_mu_;
  std::string corruption_message_;  // under corruption_mu_
};

}  // namespace spillway::broker
