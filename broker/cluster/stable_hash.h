// A string hash every broker computes the same way, whatever its build:
// placement decisions (replica assignment, group coordinators) that brokers
// make on their own must agree. FNV-1a 64; std::hash promises none of this.
#pragma once

#include <cstdint>
#include <string_view>

namespace spillway::broker::cluster {

inline uint64_t stable_hash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace spillway::broker::cluster
