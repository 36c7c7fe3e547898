// ConnectionLimits: how many connections are open, in total and per client
// address (Kafka's max.connections and max.connections.per.ip).
//
// The acceptor asks admit() for each new connection; the connection gives
// its place back with release() when it closes. When the total is reached,
// the server may close an idle connection and hand its place to the new one
// (see Server), so that idle connections cannot lock everyone out.
//
// Threading: every method may be called from any thread (one mutex; taken
// once per connect and once per close, never per request).
#pragma once

#include <asio/ip/address.hpp>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <unordered_map>

namespace spillway::broker {

class ConnectionLimits {
 public:
  enum class Admission {
    kAdmitted,     // counted; release() it when the connection closes
    kAddressFull,  // this address has max_per_address connections open
    kTotalFull,    // max_total connections are open
  };

  ConnectionLimits(size_t max_total, size_t max_per_address)
      : max_total_(max_total), max_per_address_(max_per_address) {}
  ConnectionLimits(const ConnectionLimits&) = delete;
  ConnectionLimits& operator=(const ConnectionLimits&) = delete;

  Admission admit(const asio::ip::address& address);
  // Counts a connection from `incoming` in place of one from `evicted`,
  // which the caller is about to close: in one step, so the total never
  // passes its limit. The address limit of `incoming` is checked; on
  // kAddressFull nothing changed and the caller must not evict.
  Admission replace(const asio::ip::address& evicted, const asio::ip::address& incoming);
  void release(const asio::ip::address& address);

  size_t open() const { return open_.load(std::memory_order_relaxed); }
  size_t max_total() const { return max_total_; }
  size_t max_per_address() const { return max_per_address_; }

 private:
  Admission admit_locked(const asio::ip::address& address, bool check_total);
  void release_locked(const asio::ip::address& address);

  const size_t max_total_;
  const size_t max_per_address_;
  std::atomic<size_t> open_{0};
  std::mutex mu_;
  std::unordered_map<asio::ip::address, size_t> per_address_;  // under mu_
};

}  // namespace spillway::broker
