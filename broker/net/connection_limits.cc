// ConnectionLimits: counts per address under one mutex.
#include "connection_limits.h"

namespace spillway::broker {

ConnectionLimits::Admission ConnectionLimits::admit(const asio::ip::address& address) {
  std::lock_guard lock(mu_);
  return admit_locked(address, true);
}

ConnectionLimits::Admission ConnectionLimits::replace(const asio::ip::address& evicted,
                                                      const asio::ip::address& incoming) {
  std::lock_guard lock(mu_);
  const Admission admitted = admit_locked(incoming, false);
  if (admitted == Admission::kAdmitted) release_locked(evicted);
  return admitted;
}

ConnectionLimits::Admission ConnectionLimits::admit_locked(const asio::ip::address& address,
                                                           bool check_total) {
  auto it = per_address_.find(address);
  const size_t from_address = it == per_address_.end() ? 0 : it->second;
  if (from_address >= max_per_address_) return Admission::kAddressFull;
  if (check_total && open_.load(std::memory_order_relaxed) >= max_total_) {
    return Admission::kTotalFull;
  }
  if (it == per_address_.end()) {
    per_address_.emplace(address, 1);
  } else {
    ++it->second;
  }
  open_.fetch_add(1, std::memory_order_relaxed);
  return Admission::kAdmitted;
}

void ConnectionLimits::release(const asio::ip::address& address) {
  std::lock_guard lock(mu_);
  release_locked(address);
}

void ConnectionLimits::release_locked(const asio::ip::address& address) {
  auto it = per_address_.find(address);
  if (it == per_address_.end()) return;
  if (--it->second == 0) per_address_.erase(it);
  open_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace spillway::broker
