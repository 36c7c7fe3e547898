// The daemons' logger setup (spillway-broker and its tools). Their code logs
// through spdlog's default logger (spdlog::info(...) and friends); this file
// configures it once at start and routes the libraries' log sink
// (log_sink.h) into it. Library code never calls these: a program that links
// only the client library keeps spdlog untouched.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "spillway/common/status.h"

namespace spillway::log {

// Parses "trace|debug|info|warn|error|critical|off". Error value names the
// accepted levels.
Status validate_level(std::string_view level);

// Configures the default logger: stderr, "[time] [level] [thread] message",
// the given level; and sends the library sink's lines (log_sink.h) to it at
// the same level. Safe to call again to change the level.
// Precondition: validate_level(level).ok().
void setup(std::string_view level);

// Lets one line through per `period` and counts the ones held back, so that
// an event a client can repeat at will (an oversized frame, a refused
// connection) cannot flood the log. Not thread-safe: keep one per thread or
// per owner.
class RateLimit {
 public:
  explicit RateLimit(std::chrono::milliseconds period = std::chrono::seconds(1))
      : period_(period) {}

  // True if a line may be logged now; then `*held_back` is the number of
  // events whose lines were held back since the last line that was let
  // through.
  bool allow(uint64_t* held_back) {
    const auto now = std::chrono::steady_clock::now();
    if (logged_once_ && now - last_ < period_) {
      ++held_back_;
      return false;
    }
    logged_once_ = true;
    last_ = now;
    *held_back = held_back_;
    held_back_ = 0;
    return true;
  }

 private:
  std::chrono::steady_clock::duration period_;
  std::chrono::steady_clock::time_point last_{};
  uint64_t held_back_ = 0;
  bool logged_once_ = false;
};

}  // namespace spillway::log
