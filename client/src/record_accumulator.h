// RecordAccumulator: the producer's records between send() and the I/O
// thread, queued per topic partition in batches.
//
// Owns: every Batch object (recycled through a free list, deleted with the
// accumulator) and the staging memory of the queued ones (pooled WriteBuffer
// segments); each partition's queue, its in-flight mark and its fence; each
// topic's keyless sticky partition; the count of staged bytes.
//
// Invariants:
// - A partition's queue holds its batches in send order. Only the newest
//   may be open (take records); a batch is sealed when full, when it is
//   drained for sending, or when its partition is fenced.
// - At most set_in_flight_per_partition() batches per partition are in flight:
//   one, or with idempotence up to kMaxInFlightPerPartition (Kafka's five),
//   since the broker then stores a partition's batches only in sequence
//   order and refuses one behind a gap (OUT_OF_ORDER_SEQUENCE_NUMBER), and
//   all of them are numbered under one producer id. drain_ready() passes over
//   a partition at its limit until the I/O thread calls finished(), and a
//   retry until every batch sent after it has been answered. A batch
//   to retry goes back into its queue at its place in send order (requeue(),
//   by Batch::drained): ahead of everything never sent, behind the batches
//   sent before it, so a partition's records reach the broker in send order,
//   across retries and reconnects.
// - No holes (see producer.h): fence() fails everything queued for a
//   partition, and append() refuses its records, until reset_fence().
// - The steady state allocates nothing: batches are recycled and staging
//   memory comes from the BufferPool.
//
// Concurrency: none of its own. The producer calls it under its mutex. A
// batch out of its queue (drain_ready(), take_expired(), fence()) belongs to
// the caller (the I/O thread, which builds a request from it without the
// lock) until it is handed back with requeue() or release(), under
// the mutex again.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster_routes.h"
#include "producer_batch.h"
#include "spillway/common/status.h"
#include "spillway/producer.h"

namespace spillway::producer_internal {

struct PartitionQueue {
  Batch* head = nullptr;  // oldest queued batch
  Batch* tail = nullptr;  // newest; the only one that may be open
  uint32_t in_flight = 0;  // batches drained and not yet finished()
  // The producer id every batch in flight is numbered under (-1: none);
  // only batches of one producer id are in flight together (a batch numbered
  // under a new id must not overtake a retry still numbered under the old).
  int64_t flying_producer_id = -1;
  // At least the latest Batch::drained in flight: a retry waits until the
  // batches sent after it are answered (the broker refuses them for the
  // gap it left, and they go back behind it).
  uint64_t flying_last = 0;
  uint64_t next_drained = 1;  // Batch::drained of the next batch drained first
  // Ok, or the failure that fenced the partition.
  Status fenced;
  // Idempotence (the I/O thread, under the mutex): the producer id the
  // partition's sequence numbers count under, and the next one to give.
  int64_t sequence_producer_id = -1;
  int32_t next_sequence = 0;
  // The broker the I/O thread sends this partition's batches to (its
  // leader, cluster_routes.h): wire::kBootstrapBroker until routes say
  // otherwise, wire::kNoLeader while it has none.
  int32_t leader = wire::kBootstrapBroker;
};

struct TopicQueues {
  std::string name;
  std::vector<PartitionQueue> partitions;  // by partition id; empty until set_partition_count()
  PartitionId sticky{0};                   // the partition of keyless records
  uint64_t routes_version = 0;             // the routes its leaders came from (I/O thread)

  int32_t partition_count() const noexcept { return static_cast<int32_t>(partitions.size()); }
  bool has(PartitionId p) const noexcept { return p.value() >= 0 && p.value() < partition_count(); }
  // Precondition: has(p).
  PartitionQueue& queue(PartitionId p) { return partitions[static_cast<std::size_t>(p.value())]; }
  const PartitionQueue& queue(PartitionId p) const {
    return partitions[static_cast<std::size_t>(p.value())];
  }
};

// A record to stage, and the size of its staging entry (entry_size()).
struct RecordToStage {
  std::span<const std::byte> key{};
  std::span<const std::byte> value{};
  std::span<const Header> headers{};
  DeliveryCallback callback{};
  std::size_t entry_bytes = 0;
};

// How append() picked a record's partition.
enum class Placement : uint8_t {
  kChosen,  // by key or by the caller: the record stays there
  kSticky,  // keyless: it follows the sticky partition when its batch closes
};

// Whether drain_ready() waits for a batch's linger time.
enum class Linger : uint8_t {
  kWait,  // a batch is ready when sealed or lingered
  kSkip,  // every batch with records is ready (flush, close)
};

class RecordAccumulator {
 public:
  struct Config {
    std::size_t batch_bytes = 256u << 10;
    std::chrono::milliseconds linger{5};
    std::chrono::milliseconds delivery_timeout{30'000};
  };

  explicit RecordAccumulator(Config config);
  ~RecordAccumulator();
  RecordAccumulator(const RecordAccumulator&) = delete;
  RecordAccumulator& operator=(const RecordAccumulator&) = delete;

  // --- Topics. Entries are never erased; their addresses stay valid.

  // The queues of `name`, added (with no partitions) on first use.
  TopicQueues& topic(std::string_view name);
  // The queues of `name`, or null.
  TopicQueues* find_topic(std::string_view name);
  // Sizes `t` for `count` (>= 1) partitions; the first sticky partition is
  // murmur2 of the name, as Kafka's. Precondition: `t` has no partitions.
  void set_partition_count(TopicQueues& t, int32_t count);

  // --- Appending (the callers' threads).

  struct Appended {
    Status error;                // ok, or why the record was not staged
    PartitionId partition{0};    // where it went (or would have)
    bool batch_changed = false;  // a batch was opened or sealed: wake the I/O thread
    // Every batch changed is on a partition at its in-flight limit, so none
    // can leave before an answer, which the I/O thread reads and then sends
    // them: no wake-up is needed for them.
    bool behind_in_flight = false;
  };
  // Stages `record` in the open batch of `partition` of `t` (opening one,
  // and sealing the open one first if the record would overfill it; a
  // kSticky record then follows the sticky partition). Errors: the
  // partition is fenced (fenced_error()), or no pooled memory to stage it
  // (kResourceExhausted; the partition is fenced, since records queued
  // before this one may still be delivered). Precondition:
  // t.has(partition).
  Appended append(TopicQueues& t, PartitionId partition, Placement placement,
                  const RecordToStage& record);

  // Staged bytes of batches not yet released.
  std::size_t buffered_bytes() const noexcept { return buffered_; }

  // How many batches of one partition may be in flight at once: 1 until
  // the I/O thread knows the broker numbers batches (idempotence), then at
  // most kMaxInFlightPerPartition (the broker keeps that many batches per
  // producer to recognise retries, as Kafka does).
  static constexpr uint32_t kMaxInFlightPerPartition = 5;
  void set_in_flight_per_partition(uint32_t n) noexcept {
    per_partition_ = std::clamp<uint32_t>(n, 1, kMaxInFlightPerPartition);
  }

  // --- Sending (the I/O thread).

  // Takes the ready head batch of every partition led by `leader` below its
  // in-flight limit (ready: records, retry time reached, and sealed,
  // lingered or kSkip; with batches in flight, numbered or to be numbered
  // under their producer id, `producer_id` for a batch not yet numbered),
  // stopping once `max_bytes` would be passed (one batch may pass it), and
  // marks them in flight. Returns them linked, grouped by topic; null if
  // none.
  Batch* drain_ready(Clock::time_point now, Linger linger, std::size_t max_bytes,
                     int32_t leader = wire::kBootstrapBroker, int64_t producer_id = -1);
  // The earliest of `limit` and the times a queued batch becomes ready (of
  // partitions whose leader is in `sendable`: the others cannot be sent
  // now) or reaches its delivery deadline (any partition).
  Clock::time_point next_due(Clock::time_point limit, Linger linger,
                             std::span<const int32_t> sendable = kBootstrapOnly) const;
  // True iff a partition led by `leader` (wire::kNoLeader: with no leader
  // to send to) has queued batches.
  bool has_batches_for(int32_t leader) const;
  // Calls fn(TopicQueues&) for every topic (the I/O thread routes them).
  template <typename Fn>
  void for_each_topic(Fn&& fn) {
    for (auto& [name, t] : topics_) fn(*t);
  }
  static constexpr int32_t kBootstrapOnly[] = {wire::kBootstrapBroker};
  // The earliest of `limit` and the queued batches' delivery deadlines.
  Clock::time_point next_expiry(Clock::time_point limit) const;
  // True iff no batch is queued or in flight.
  bool idle() const;

  // --- Outcomes (the I/O thread).

  // The head batch of every partition whose head is past its delivery
  // deadline (every head when `closing`), taken out of its queue. Linked,
  // in topic and partition order.
  Batch* take_expired(Clock::time_point now, bool closing);
  // The request that carried `b` is over (answered, failed or never
  // sent): its partition may send again.
  void finished(Batch* b);
  // `b` (out of its queue, drained before) goes back into its partition's
  // queue at its place in send order (Batch::drained), to be sent again.
  void requeue(Batch* b);
  // True iff a batch of `b`'s partition sent before `b` waits in its queue
  // to be sent again.
  bool earlier_batch_queued(const Batch* b) const;
  // Fences partition `partition` of `t` after one of its records failed
  // with `cause` (the first cause is kept): every batch queued for it fails
  // with fenced_error(), pushed onto `*done`, and append() refuses it until
  // reset_fence(). The callers ensure all of those were sent after the
  // failed record.
  void fence(TopicQueues& t, PartitionId partition, const Status& cause, Batch** done);
  // Fences `partition` of `t` for the records sent from now on only (the
  // first cause is kept); what is queued may still be delivered. For a
  // record that failed before it was staged.
  void fence_later_records(TopicQueues& t, PartitionId partition, const Status& cause);
  // Returns a completed batch's staging memory to the pool and the batch to
  // the free list.
  void release(Batch* b);

  // --- Fences (any thread, under the producer's mutex).

  std::vector<FencedPartition> fenced_partitions() const;
  // Lifts the fence of `partition` of `topic` (ok if it had none). Errors:
  // kUnknownTopic when no partition count is known, kUnknownPartition.
  Status reset_fence(std::string_view topic, PartitionId partition);
  // The error of a record not sent because its partition is fenced.
  static Status fenced_error(const TopicQueues& t, PartitionId partition, const Status& cause);

 private:
  Batch* new_batch(TopicQueues& t, PartitionId partition, Clock::time_point now);
  // Seals `b`; the keyless sticky partition moves on when its batch closes,
  // as Kafka's sticky partitioner does.
  void seal(TopicQueues& t, Batch* b);

  const Config config_;
  uint32_t per_partition_ = 1;
  std::map<std::string, std::unique_ptr<TopicQueues>, std::less<>> topics_;
  // The topic of the last append: most producers send to one topic, and the
  // map lookup (string compares down the tree) was a tenth of send()'s cost.
  TopicQueues* last_topic_ = nullptr;
  Batch* free_ = nullptr;
  std::vector<Batch*> all_;  // every batch, to delete
  std::size_t buffered_ = 0;
};

}  // namespace spillway::producer_internal
