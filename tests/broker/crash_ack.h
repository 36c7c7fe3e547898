// The acknowledgement record a crash-test child sends its parent over a pipe
// for every append that returned success under the `durable` policy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace spillway::storage::testing {

struct CrashAck {
  int64_t base_offset;
  int64_t last_offset;
  uint64_t size;
  uint64_t hash;  // fnv1a64 of the stored bytes
};
static_assert(sizeof(CrashAck) == 32);  // well under PIPE_BUF: writes are atomic

inline uint64_t fnv1a64(std::span<const std::byte> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (std::byte b : bytes) {
    h ^= static_cast<uint8_t>(b);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace spillway::storage::testing
