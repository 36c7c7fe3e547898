// LeaderState: what a partition's leader knows about its followers, and the
// two things it decides from that: the high watermark and the ISR changes
// to propose (docs/replication-partition.md). Pure: no I/O, no clock reads
// (every call that needs the time is given it), so the Partition and the
// deterministic tests (tests/replication/) run the same code.
//
// Offsets are "log ends as far as the high watermark may count them": a
// follower's fetch offset is what it has (under the `durable` policy it
// fetches only past what it fdatasynced, so it is its durable end), and the
// leader's own end is its durable end under `durable`, its log end under
// `interval`.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "spillway/common/ids.h"

namespace spillway::broker::replication {

class LeaderState {
 public:
  // A new leadership term: `epoch` starts at `epoch_start` (the leader's
  // log end when it became leader), `isr` is the stored ISR, `hw` the
  // high watermark the replica already had (never lowered: HW only grows
  // while leader). Followers' ends are unknown until they fetch, so the HW
  // stays where it is until every ISR member has fetched once. ISR members
  // count as caught up at `now_ms` (Kafka's rule: they get a full lag
  // period to fetch from the new leader).
  void begin(BrokerId self, LeaderEpoch epoch, Offset epoch_start, std::vector<BrokerId> replicas,
             std::vector<BrokerId> isr, Offset hw, int64_t lag_max_ms, int64_t now_ms);

  // A follower fetched at `fetch_offset` while the leader's end was
  // `leader_end`. Kafka's lastCaughtUpTime: caught up now when the fetch
  // reaches the leader's end, or caught up as of the previous fetch when it
  // reaches the end the leader had then. Unknown replicas are ignored
  // (returns false).
  bool record_fetch(BrokerId replica, Offset fetch_offset, Offset leader_end, int64_t now_ms);

  // Recomputes the HW from the leader's own end: the minimum over the
  // ISR, including members whose removal is not yet stored; unchanged while
  // a member's end is unknown; never lower than before. True when it moved.
  bool update_high_watermark(Offset leader_end);
  Offset high_watermark() const { return hw_; }

  // The ISR change to propose now, or nothing (one is in flight, or
  // nothing to change). Expansion first (a follower not in the ISR whose
  // end is >= the HW and >= the epoch's start, and that was caught up
  // within lag_max_ms), else a shrink (members not
  // caught up for more than lag_max_ms). The proposal is in flight from
  // then on until isr_stored() or isr_failed().
  std::optional<std::vector<BrokerId>> propose_isr_change(int64_t now_ms);

  // The replicas whose brokers are registered in the cluster now (every
  // replica from begin() until told otherwise). Only these may join the
  // ISR (Kafka's KIP-841): a broker that lost its registration (its lease
  // expired, say because it is cut off from etcd) is taken out of every ISR
  // by the controller, and a leader that still hears it fetch must not put
  // it back, or the two undo each other's writes for as long as it lasts.
  void set_registered(std::vector<BrokerId> registered) { registered_ = std::move(registered); }

  // The partition's replicas changed within the term (a partition move,
  // docs/operations.md): a new replica is followed from its first fetch
  // (its end unknown, not caught up), the ones that stay keep what is known
  // of them, and a replica no longer listed is forgotten.
  void set_replicas(const std::vector<BrokerId>& replicas);

  // The stored ISR (after this leader's write, or read from the cluster):
  // the in-flight change is over. Members newly added count as caught up
  // at `now_ms`.
  void isr_stored(std::vector<BrokerId> isr, int64_t now_ms);
  // The write failed (compare lost): nothing in flight; the next snapshot
  // brings the stored state.
  void isr_failed() { pending_.reset(); }

  const std::vector<BrokerId>& isr() const { return isr_; }
  bool change_in_flight() const { return pending_.has_value(); }
  const std::optional<std::vector<BrokerId>>& pending() const { return pending_; }
  LeaderEpoch epoch() const { return epoch_; }
  Offset epoch_start() const { return epoch_start_; }
  // A follower's last fetch offset (kNoOffset when unknown or not a replica).
  Offset follower_end(BrokerId replica) const;

 private:
  struct Follower {
    BrokerId id = kNoBroker;
    Offset end = kNoOffset;  // unknown until it fetches
    int64_t last_caught_up_ms = 0;
    int64_t last_fetch_ms = 0;
    Offset last_fetch_leader_end = kNoOffset;
  };
  Follower* find(BrokerId id);
  const Follower* find(BrokerId id) const;
  static bool contains(const std::vector<BrokerId>& set, BrokerId id);

  BrokerId self_ = kNoBroker;
  LeaderEpoch epoch_{-1};
  Offset epoch_start_{0};
  int64_t lag_max_ms_ = 10'000;
  std::vector<Follower> followers_;   // every replica but the leader
  std::vector<BrokerId> isr_;         // stored
  std::vector<BrokerId> registered_;  // replicas whose brokers are registered
  std::optional<std::vector<BrokerId>> pending_;
  Offset hw_{0};
};

}  // namespace spillway::broker::replication
