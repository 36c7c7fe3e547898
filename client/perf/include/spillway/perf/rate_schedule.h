// The fixed-rate schedule of `spillway perf --rate`: message k of the run is
// due at start + k / rate, whatever happened to the messages before it.
// Latency is measured from that intended time, not from when the message
// was actually sent, so a stall shows up in every message it delayed instead
// of being hidden (no "coordinated omission").
#pragma once

#include <chrono>
#include <cstdint>

namespace spillway::perf {

using Clock = std::chrono::steady_clock;

// Nanoseconds since the steady clock's epoch; the timestamps the harness
// compares (and embeds in messages for end-to-end runs).
inline uint64_t now_ns() noexcept {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
          .count());
}

class RateSchedule {
 public:
  // `start_ns` is the intended time of message 0 (a now_ns() value);
  // `messages_per_second` > 0 is the total rate over all senders.
  RateSchedule(uint64_t start_ns, uint64_t messages_per_second) noexcept
      : start_ns_(start_ns), rate_(messages_per_second) {}

  // Intended send time of message k: start + floor(k * 1e9 / rate), exact
  // in integer arithmetic for any k a run can reach.
  uint64_t intended_ns(uint64_t k) const noexcept {
    const unsigned __int128 offset = static_cast<unsigned __int128>(k) * 1'000'000'000u / rate_;
    return start_ns_ + static_cast<uint64_t>(offset);
  }

  // With `senders` threads sharing the rate, sender s sends messages
  // s, s + senders, s + 2*senders, ...; this is the n-th message of sender s.
  static uint64_t message_of_sender(uint64_t n, uint32_t sender, uint32_t senders) noexcept {
    return n * senders + sender;
  }

  // Messages due by time `t_ns` (those with intended_ns(k) <= t_ns).
  uint64_t due_by(uint64_t t_ns) const noexcept;

  uint64_t start_ns() const noexcept { return start_ns_; }
  uint64_t rate() const noexcept { return rate_; }

 private:
  uint64_t start_ns_;
  uint64_t rate_;
};

// Blocks until now_ns() >= t_ns on an absolute CLOCK_MONOTONIC sleep (timer
// slack cut to 1 µs), never spinning: a spinning sender steals the core the
// broker and the consumer need on a small machine. A late wake-up is counted
// in the latencies, which run from the intended time. Returns at once when t_ns has passed (a
// sender that is behind catches up without pausing; its messages' latencies carry the delay).
void wait_until_ns(uint64_t t_ns) noexcept;

}  // namespace spillway::perf
