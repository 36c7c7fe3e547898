// MemoryBudget: a lock-free byte counter with per-core wake-ups.
#include "memory_budget.h"

#include <algorithm>

#include "core/task_pool.h"

namespace spillway::broker {

MemoryBudget::MemoryBudget(uint64_t limit, size_t cores) : limit_(limit), wakers_(cores) {}

bool MemoryBudget::try_take(uint64_t n) {
  uint64_t used = used_.load(std::memory_order_relaxed);
  do {
    if (used + n > limit_) return false;
  } while (!used_.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
  return true;
}

uint64_t MemoryBudget::take_up_to(uint64_t want) {
  uint64_t used = used_.load(std::memory_order_relaxed);
  uint64_t n = 0;
  do {
    n = used >= limit_ ? 0 : std::min(want, limit_ - used);
    if (n == 0) return 0;
  } while (!used_.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
  return n;
}

void MemoryBudget::give_back(uint64_t n) {
  if (n == 0) return;
  // seq_cst pairs with arm(): either the waiter's retry sees the
  // bytes given back here, or this sees its pending flag.
  used_.fetch_sub(n, std::memory_order_seq_cst);
  if (waiting_.load(std::memory_order_seq_cst) == 0) return;
  for (Waker& w : wakers_) {
    if (w.context == nullptr || !w.pending.load(std::memory_order_seq_cst)) continue;
    if (!w.pending.exchange(false, std::memory_order_seq_cst)) continue;
    post_task(*w.context, [&w] { w.wake(w.ctx); });
  }
}

void MemoryBudget::set_waker(size_t core, asio::io_context* context, void (*wake)(void*),
                             void* ctx) {
  wakers_[core].context = context;
  wakers_[core].wake = wake;
  wakers_[core].ctx = ctx;
}

bool ConnectionMemory::admit(uint64_t n, bool* empty) {
  *empty = held_ == 0;
  if (*empty) {
    // Always admitted: this is how a client that reads its responses is
    // never stopped by clients that do not.
    force(n);
    return true;
  }
  if (held_ + n > limit_ || !global_->try_take(n)) return false;
  held_ += n;
  return true;
}

uint64_t ConnectionMemory::grant(uint64_t want, bool empty) {
  const uint64_t room = held_ >= limit_ ? 0 : limit_ - held_;
  uint64_t n = global_->take_up_to(std::min(want, room));
  if (empty) {
    const uint64_t minimum = std::min({want, room, kMinimumGrant});
    if (n < minimum) {
      global_->take(minimum - n);
      n = minimum;
    }
  }
  held_ += n;
  return n;
}

void ConnectionMemory::force(uint64_t n) {
  global_->take(n);
  held_ += n;
}

void ConnectionMemory::release(uint64_t n) {
  held_ -= n;
  global_->give_back(n);
}

}  // namespace spillway::broker
