// ReplicationThrottle: the broker-wide limit on reassignment traffic, the
// bytes this broker, as a leader, sends in ReplicaFetch responses to
// replicas that a partition move is adding and that are not in sync yet
// (docs/operations.md, "Moving a partition"). Every other replica fetch,
// and every client fetch, is left alone. A token bucket holding at most one
// second's worth: a throttled read may send what the bucket holds, and at
// least its first batch whole (the bucket then goes into debt, which later
// reads wait out), so a move always progresses and the long-run rate is
// the configured one. While the bucket is empty the partition counts as
// having no data: the follower's fetch waits (up to its max_wait_ms) and is
// answered without records for it, never with an error (Kafka's leader
// replication throttle).
//
// The rate comes from the cluster's snapshot (the smallest throttle of the
// moves in progress, ClusterNode::on_snapshot); 0 turns the throttle off.
//
// Thread-safe: the bucket is under a mutex taken once per throttled read
// and once per throttled response (reassignment traffic only); the
// counters are relaxed atomics.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

namespace spillway::broker::replication {

class ReplicationThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  // `now` is the clock (a test's fake one, or the steady clock).
  explicit ReplicationThrottle(std::function<Clock::time_point()> now = &Clock::now);

  // Bytes per second; 0: unthrottled. A new rate keeps the bucket's level
  // (capped at the new second's worth).
  void set_rate(uint64_t bytes_per_second);
  uint64_t rate() const { return rate_.load(std::memory_order_relaxed); }

  // What a throttled read may send now (refilled by the time since the
  // last call): 0 while the bucket is empty or in debt; UINT64_MAX when
  // unthrottled.
  uint64_t available();
  // `bytes` were sent under the throttle: taken from the bucket, which may
  // go below zero (the first batch goes whole) and is counted in
  // throttled_bytes().
  void charge(uint64_t bytes);
  // A throttled partition's read was held back (the bucket was empty):
  // its fetch waits.
  void count_held() { held_.fetch_add(1, std::memory_order_relaxed); }

  // Moves in progress in the cluster, as the last snapshot showed (for
  // /metrics).
  void set_ongoing(uint64_t moves) { ongoing_.store(moves, std::memory_order_relaxed); }

  // For /metrics.
  uint64_t throttled_bytes() const { return throttled_bytes_.load(std::memory_order_relaxed); }
  uint64_t held() const { return held_.load(std::memory_order_relaxed); }
  uint64_t ongoing() const { return ongoing_.load(std::memory_order_relaxed); }

 private:
  void refill_locked(Clock::time_point now);

  std::function<Clock::time_point()> now_;
  std::atomic<uint64_t> rate_{0};
  std::mutex mu_;
  double tokens_ = 0;             // under mu_; negative: in debt
  Clock::time_point refilled_{};  // under mu_
  std::atomic<uint64_t> throttled_bytes_{0};
  std::atomic<uint64_t> held_{0};
  std::atomic<uint64_t> ongoing_{0};
};

}  // namespace spillway::broker::replication
