// MemoryBudget and ConnectionMemory: the bytes of requests and responses in
// flight, bounded for the whole broker and for each connection (DESIGN.md,
// decision 13: bounded by bytes, not counts).
//
// What is counted: a request's body from the moment its length is known
// until its exchange is recycled (handlers keep copies of what they need,
// such as produced batches, for about that long), and a fetch response's
// bytes from when the handler sizes it until it has been written.
//
// The rules, chosen so that a client that stops reading only ever stops
// itself, and a client that reads its responses is never stopped:
//   - A connection that holds nothing (what a client that reads its
//     responses looks like between requests) may always start a request.
//     If the broker is over its budget, that request's fetch response is
//     cut to kMinimumGrant bytes (plus its first batch, below).
//   - A connection that holds something may add only while it stays within
//     its own share (`connection_limit`) and the broker within its budget.
//     Otherwise it is not read: until its own responses are written when
//     over its share, until memory is given back anywhere when the broker
//     is over budget. So the connections that hold the most stop first.
//   - A fetch is sized down to what fits rather than waiting (Kafka's fetch
//     may also return fewer bytes than asked), but it always carries its
//     first batch whole (KIP-74), so a consumer makes progress.
// The budget is therefore soft by a bounded amount: past it, each
// connection can add at most one request (body, or kMinimumGrant plus one
// batch of fetch response) before it stops.
//
// Threading: MemoryBudget is shared by every core (atomics, no lock).
// A ConnectionMemory belongs to one connection's thread.
#pragma once

#include <asio/io_context.hpp>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spillway::broker {

class MemoryBudget {
 public:
  // `limit` bytes in total; `cores` threads may wait for memory.
  MemoryBudget(uint64_t limit, size_t cores);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  uint64_t limit() const { return limit_; }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  // Connections waiting for the broker-wide budget right now (all cores).
  uint64_t waiting() const { return waiting_.load(std::memory_order_relaxed); }
  // Connections not read because they hold their whole share (they wait for
  // their own writes; all cores).
  uint64_t over_share() const { return over_share_.load(std::memory_order_relaxed); }
  void add_over_share() { over_share_.fetch_add(1, std::memory_order_relaxed); }
  void remove_over_share() { over_share_.fetch_sub(1, std::memory_order_relaxed); }

  // Takes `n` bytes if the total stays within the limit. True iff taken.
  bool try_take(uint64_t n);
  // Takes up to `want` bytes, as many as keep the total within the limit;
  // returns how many were taken (possibly 0).
  uint64_t take_up_to(uint64_t want);
  // Takes `n` bytes whatever the total.
  void take(uint64_t n) { used_.fetch_add(n, std::memory_order_relaxed); }
  // Gives bytes back and wakes the cores that have connections waiting.
  void give_back(uint64_t n);

  // Core `core`'s wake-up: `wake(ctx)` is posted to `context` when memory
  // is given back while the core waits. Set once per core, before use.
  void set_waker(size_t core, asio::io_context* context, void (*wake)(void* ctx), void* ctx);
  // Connections waiting for memory are counted (add/remove_waiter) so that
  // give_back() costs one load when nobody waits. arm(core) asks for one
  // wake of `core` at the next give_back(); after arming, the caller must
  // try once more before it sleeps, since memory given back just before
  // the core was armed does not wake it.
  void add_waiter() { waiting_.fetch_add(1, std::memory_order_seq_cst); }
  void remove_waiter() { waiting_.fetch_sub(1, std::memory_order_relaxed); }
  void arm(size_t core) { wakers_[core].pending.store(true, std::memory_order_seq_cst); }

 private:
  struct Waker {
    asio::io_context* context = nullptr;
    void (*wake)(void* ctx) = nullptr;
    void* ctx = nullptr;
    std::atomic<bool> pending{false};  // a wake is owed to this core
  };

  const uint64_t limit_;
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> waiting_{0};
  std::atomic<uint64_t> over_share_{0};
  std::vector<Waker> wakers_;
};

// One connection's account. Everything it takes is also taken from the
// global budget; release() gives both back.
class ConnectionMemory {
 public:
  // What a fetch response of a connection that held nothing gets when the
  // broker is over its budget.
  static constexpr uint64_t kMinimumGrant = 64 << 10;

  ConnectionMemory(MemoryBudget& global, uint64_t connection_limit)
      : global_(&global), limit_(connection_limit) {}
  ConnectionMemory(const ConnectionMemory&) = delete;
  ConnectionMemory& operator=(const ConnectionMemory&) = delete;
  ~ConnectionMemory() { release(held_); }

  uint64_t held() const { return held_; }
  MemoryBudget& global() const { return *global_; }

  // Whether a request that needs `n` bytes fits this connection's share
  // (always, when the connection holds nothing).
  bool fits_share(uint64_t n) const { return held_ == 0 || held_ + n <= limit_; }
  // Admits a request that needs `n` bytes (see the rules in the file
  // comment). True iff the bytes were taken; then `*empty` says whether the
  // connection held nothing before (the request's grants depend on it).
  bool admit(uint64_t n, bool* empty);
  // Grants up to `want` bytes for a response of a request admitted with
  // `empty` (see admit()); 0 when nothing fits.
  uint64_t grant(uint64_t want, bool empty);
  // Takes `n` bytes whatever the limits (the first-batch overshoot).
  void force(uint64_t n);
  void release(uint64_t n);

 private:
  MemoryBudget* global_;
  uint64_t limit_;
  uint64_t held_ = 0;
};

}  // namespace spillway::broker
