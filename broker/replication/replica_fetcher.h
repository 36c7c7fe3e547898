// ReplicaFetcher: the follower side of replication (docs/replication-fetch.md).
// For every partition this broker follows it keeps the local log equal to
// the leader's: after a leader change it finds where the two logs diverge
// (LeaderEpochEnd, KIP-101/279) and truncates there, then reads the
// leader's log with ReplicaFetch from its own log end and appends what
// comes verbatim (Partition::append_replicated).
//
// One connection per leader broker (a Link), asynchronous on one
// io_context (the ReplicaManager gives it core 0's). A link sends one
// request at a time: LeaderEpochEnd for the partitions that need it, else
// one ReplicaFetch covering every partition ready to fetch, which
// long-polls on the leader up to max_wait_ms. The next fetch starts once
// the appends of the previous response are done, so each fetch starts at
// the partitions' log ends.
//
// Per partition: kLocalEnd (its own end of its latest epoch, asked from its
// owner core) -> kLeaderEnd (the leader's end of that epoch) -> repeated
// with the leader's smaller epoch until they agree -> kTruncate
// (truncate_to) -> kFetch. kNotLeaderOrFollower and kFencedLeaderEpoch
// from the leader or the partition stop it (kStopped) until add_partition
// gives a new assignment; other errors retry it after a backoff. A lost
// connection is reopened after a bounded, jittered exponential backoff.
//
// Not done: TLS and SASL on the link (it connects in PLAINTEXT to the
// leader's native address), a follower whose fetch offset fell below the
// leader's log start (it stops, logged), and the leader's high watermark
// reaching the follower without records.
//
// Threading: the public methods may be called from any thread (they post
// to the io_context); everything else runs on it.
#pragma once

#include <asio/io_context.hpp>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/partition.h"
#include "spillway/common/ids.h"

namespace spillway::broker::replication {

struct FetcherOptions {
  BrokerId broker_id = kNoBroker;  // this broker, sent as replica_id
  int64_t broker_epoch = 0;        // its registration (set_broker_epoch updates it)
  int32_t max_wait_ms = 500;       // a fetch's long poll on the leader
  int32_t max_bytes = 8 << 20;     // per ReplicaFetch response
  // Per partition and response. At most BufferPool::kMaxBufferSize so that
  // a partition's records fit the pooled buffers they are appended from.
  int32_t partition_max_bytes = 1 << 20;
  // Largest response frame read; larger closes the link. max_bytes plus a
  // first batch sent whole plus headers.
  uint32_t max_response_bytes = (10u << 20);
  int64_t backoff_initial_ms = 100;
  int64_t backoff_max_ms = 5'000;
};

// What a followed partition is doing (observer, tests).
enum class FollowPhase { kLocalEnd, kLeaderEnd, kTruncate, kFetch, kStopped };

struct FollowEvent {
  std::string_view topic;
  PartitionId partition{0};
  FollowPhase phase = FollowPhase::kLocalEnd;
  ErrorCode error = ErrorCode::kOk;  // what stopped or delayed it, if anything
  Offset log_end{0};                 // after the step
};

class ReplicaFetcher {
 public:
  ReplicaFetcher(asio::io_context& context, FetcherOptions options);
  // stop() first; the destructor only lets go of the state.
  ~ReplicaFetcher();
  ReplicaFetcher(const ReplicaFetcher&) = delete;
  ReplicaFetcher& operator=(const ReplicaFetcher&) = delete;

  // Follows `partition` (already become_follower'd with this leader and
  // epoch) from `leader` at `leader_address` (its advertised native
  // HOST:PORT). Replaces any earlier assignment of the same partition: a
  // new leader or epoch starts again with the truncation; the same one is
  // a no-op unless the partition was stopped.
  void add_partition(std::shared_ptr<Partition> partition, BrokerId leader,
                     std::string leader_address, LeaderEpoch leader_epoch);
  // Stops following it (an append in flight still completes).
  void remove_partition(std::string topic, PartitionId partition);
  // A new registration of this broker (after a lost lease).
  void set_broker_epoch(int64_t epoch);
  // Closes every link and forgets every partition; the io_context may then
  // stop once the replies in flight have come back. `closed`, if given,
  // runs on the io_context once the connections are closed. Idempotent.
  // Call it while the io_context still runs (a stop queued on a stopped
  // context never closes the connections).
  void stop(std::function<void()> closed = nullptr);

  // Called on the io_context's thread after each step of a partition
  // (tests wait on it; the ReplicaManager may log it). Set before use.
  void set_observer(std::function<void(const FollowEvent&)> observer);

  // The state every link shares (defined in the .cc).
  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace spillway::broker::replication
