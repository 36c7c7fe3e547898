// Consumer: reads records from assigned partitions of a Spillway broker.
//
// assign() names the partitions; each starts at the offset committed for
// the consumer's group (when it has one), else at the beginning or the end
// of the log (ConsumerOptions::reset). poll() long-polls the broker with one
// Fetch request for every assigned partition (in a cluster, one to each
// partition's leader, learnt from the bootstrap broker and followed when
// it moves), over a connection of its own beside the one for commits and
// lookups, and returns the records it got, in offset order per partition,
// decompressing zstd batches and skipping records below the position
// inside the first batch. Every batch's CRC-32C is checked before any of
// its records is handed out, so a byte damaged on the broker's disk or on
// the way is an error, never a record. Records already fetched are handed
// out by later polls without a request; that path allocates nothing. While
// an answer leaves a partition behind its high watermark, the next Fetch is
// sent as soon as the answer is read (fetching ahead), so the broker
// prepares the next records while these are handed out; a poll() whose
// timeout ends first leaves it out for the next poll(). Caught up, the
// next poll() sends it, so records are handed out without a send first.
//
// subscribe() instead makes the consumer a member of its consumer group
// (ConsumerOptions::group_id): the group's members share the partitions of
// the subscribed topics, each partition read by one member at a time, and
// share them anew (a rebalance) when members come, go or stop
// heartbeating. A RebalanceListener hears which partitions are revoked and
// assigned; by default positions are committed on revocation. See
// docs/client.md, "Consumer groups".
//
// Concurrency: one thread at a time. Views in the records poll() returns
// stay valid until the next poll(), seek, assign or destruction. A
// subscribed consumer also runs one background thread of its own that only
// sends heartbeats (on its own connection); it never touches the
// consumer's state, and listener callbacks run on the thread that called
// poll() or close(), inside that call.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/record_batch.h"
#include "spillway/common/status.h"
#include "spillway/connection.h"
#include "spillway/topic_description.h"
#include "spillway/topic_partition.h"

namespace spillway {

enum class OffsetReset : int8_t { kEarliest, kLatest };

// How a subscribed group shares partitions (the group leader runs it).
enum class GroupAssignor : int8_t {
  // Kafka's "range": contiguous ranges per topic; eager: every member
  // gives up all its partitions at every rebalance.
  kRange,
  // Kafka's "cooperative-sticky": balanced, members keep what they own,
  // and only partitions that move are revoked (two rebalance rounds).
  kCooperativeSticky,
};

struct ConsumerOptions {
  // "host:port" of a broker, or several separated by commas (the first
  // that answers takes the control calls and, subscribed, coordinates the
  // group). In a cluster each partition is fetched from its leader.
  std::string bootstrap = "127.0.0.1:9093";
  // Empty = no group: nothing is committed and every partition starts at
  // `reset`. Otherwise positions start at the group's committed offsets.
  std::string group_id;
  OffsetReset reset = OffsetReset::kEarliest;  // where to start without a commit
  std::chrono::milliseconds fetch_max_wait{500};
  int32_t fetch_max_bytes = 8 << 20;
  int32_t partition_max_bytes = 1 << 20;
  // poll() returns about this many records at most (whole batches).
  std::size_t max_poll_records = 2'000;
  std::chrono::milliseconds connect_timeout{5'000};
  std::chrono::milliseconds request_timeout{10'000};
  uint32_t max_response_bytes = 64u << 20;
  // TLS and SASL (spillway/connection.h); default plaintext, unauthenticated.
  SecurityOptions security;

  // subscribe() only. Every member of a group must use the same assignor.
  GroupAssignor assignor = GroupAssignor::kCooperativeSticky;
  // Without a heartbeat for this long the broker drops the member (within
  // the broker's [groups] bounds).
  std::chrono::milliseconds session_timeout{10'000};
  // How often the background thread heartbeats (well below the session
  // timeout: a third is usual).
  std::chrono::milliseconds heartbeat_interval{3'000};
  // How long a rebalance waits for members to rejoin; a member that polls
  // less often than this is left out of the new generation.
  std::chrono::milliseconds rebalance_timeout{60'000};
};

class Consumer;

// Hears a subscribed consumer's rebalances. Both calls run inside poll()
// (or close()) on its thread, and may call the consumer (commit, seek,
// position), but not poll().
class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  // `partitions` are about to be taken away (a rebalance moved them, or
  // the consumer closes) or were lost (the member was dropped from the
  // group: a heartbeat or commit was answered kUnknownMember or
  // kFencedInstanceId); records of them are no longer returned. The
  // default commits their positions, so the next owner starts after what
  // poll() returned here; a failed commit only means records are read
  // again. For lost partitions that commit is always refused (the member
  // is in no generation), so a dropped member never moves offsets that
  // another member may own by now.
  virtual void on_partitions_revoked(Consumer& consumer,
                                     std::span<const TopicPartition> partitions);
  // `partitions` were added to the assignment; they start at the group's
  // committed offsets (else ConsumerOptions::reset) unless seeked here.
  virtual void on_partitions_assigned(Consumer& consumer,
                                      std::span<const TopicPartition> partitions) {
    (void)consumer;
    (void)partitions;
  }
};

// One record. Spans and the topic point into the consumer's buffers.
struct ConsumerRecord {
  std::string_view topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp = 0;           // milliseconds since the epoch
  std::span<const std::byte> key;  // empty when has_key is false
  bool has_key = false;
  std::span<const std::byte> value;  // empty when has_value is false
  // False for a null value (a Kafka tombstone, length -1); the native
  // Producer always sends a value, possibly empty.
  bool has_value = true;
  int32_t header_count = 0;
  std::span<const std::byte> encoded_headers;  // see for_each_header

  std::string_view key_string() const noexcept {
    return {reinterpret_cast<const char*>(key.data()), key.size()};
  }
  std::string_view value_string() const noexcept {
    return {reinterpret_cast<const char*>(value.data()), value.size()};
  }
  // Calls fn(std::string_view key, std::span<const std::byte> value) for
  // each header. kCorruptMessage if the encoded headers are malformed.
  template <typename Fn>
  Status for_each_header(Fn&& fn) const;
};

using ConsumerRecords = std::span<const ConsumerRecord>;

struct TopicPartitionOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;  // the next offset to consume
};

class Consumer {
 public:
  // Validates the options and connects. Errors: kInvalidArgument,
  // kNotConnected, kTimeout.
  static Result<std::unique_ptr<Consumer>> create(ConsumerOptions options);
  ~Consumer();
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Adds partitions of `topic` to the assignment (all of them when
  // `partitions` is empty). Errors: kUnknownTopic, kUnknownPartition,
  // transport errors. Records already fetched are dropped.
  Status assign(std::string_view topic, std::span<const int32_t> partitions = {});
  // Drops every assigned partition.
  void unassign();

  // Joins the consumer group ConsumerOptions::group_id as a member reading
  // `topics`; the group decides which of their partitions this consumer
  // reads (assignment()). The join itself happens in the next poll().
  // `listener` may be null (the default listener: commit on revoke).
  // Errors: kInvalidArgument without a group id or topics, after assign(),
  // when already subscribed, or for a heartbeat_interval not below the
  // session_timeout.
  Status subscribe(std::vector<std::string> topics,
                   std::shared_ptr<RebalanceListener> listener = nullptr);
  // The partitions read now (assigned or, when subscribed, given by the
  // group), sorted.
  std::vector<TopicPartition> assignment() const;
  // A subscribed consumer: revokes its partitions (the listener commits
  // them), leaves the group so the others take them over at once, and
  // stops heartbeating. Returns the first error; the consumer can then only
  // be destroyed. Without a subscription: nothing. The destructor calls it.
  Status close();

  // The next poll() reads `topic`/`partition` from `offset`
  // (kUnknownPartition if it is not assigned).
  Status seek(std::string_view topic, int32_t partition, int64_t offset);
  Status seek_to_beginning(std::string_view topic, int32_t partition);
  Status seek_to_end(std::string_view topic, int32_t partition);
  // The next offset poll() will return for the partition; -1 while it is
  // still to be resolved (committed offset or reset).
  Result<int64_t> position(std::string_view topic, int32_t partition) const;

  // Returns the next records, waiting up to `timeout` for some; empty when
  // none arrived. A subscribed consumer first (re)joins its group when it
  // must, running the listener; a member with no partitions waits for
  // the next rebalance instead of fetching. Group errors (a failed join)
  // are returned as they are and the next poll() tries again. Errors:
  // kUnknownTopic/kUnknownPartition/kCorruptMessage from the broker, kNotConnected/kTimeout when
  // the broker cannot be reached (the next poll reconnects), kInvalidArgument with nothing
  // assigned. kCorruptMessage also for a fetched batch whose CRC-32C does
  // not match or that does not decode; its message names the topic,
  // partition and offset ("t/0 offset 3: corrupt batch, ..."). The records
  // before that batch are returned first; none of it, nor anything of its
  // partition after it, is ever returned, and every later poll fails the
  // same way until a seek() moves the position past it.
  Result<ConsumerRecords> poll(std::chrono::milliseconds timeout);

  // Commits the current positions of every assigned partition (the offsets
  // after the records poll() has returned) for the group; durable when it
  // returns ok. kInvalidArgument without a group id.
  // After assign() it is a "simple" commit, which the broker refuses
  // (kUnknownMember) while the group has members. After subscribe() it is
  // this member's commit, which the broker stores only while the member is
  // in the group's current generation: kIllegalGeneration, kUnknownMember,
  // kRebalanceInProgress or kFencedInstanceId say its partitions may have
  // moved, and the next poll() rejoins the group; kRebalanceInProgress also
  // while the consumer is not in a generation (joining), without asking
  // the broker.
  Status commit();
  Status commit(std::span<const TopicPartitionOffset> offsets);
  // The group's committed offset for the partition; -1 when none.
  Result<int64_t> committed(std::string_view topic, int32_t partition);

  // The broker's view of `topic` (log start offsets and high watermarks).
  Result<TopicDescription> describe(std::string_view topic);

  struct Impl;

 private:
  explicit Consumer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

template <typename Fn>
Status ConsumerRecord::for_each_header(Fn&& fn) const {
  batch::RecordView view{};
  view.header_count = header_count;
  view.headers = encoded_headers;
  batch::HeaderReader reader(view);
  batch::RecordHeaderView h;
  while (reader.next(&h)) {
    fn(std::string_view(reinterpret_cast<const char*>(h.key.data()), h.key.size()), h.value);
  }
  return reader.status();
}

}  // namespace spillway
