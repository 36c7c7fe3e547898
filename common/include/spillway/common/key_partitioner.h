// KeyPartitioner: Kafka-compatible key → partition mapping, so keys land
// where Java and librdkafka murmur2 producers put them:
//   partition = (murmur2(key) & 0x7fffffff) % partitions
// with Kafka's murmur2 (seed 0x9747b28c).
//
// A key made of pieces (the topic as a prefix, then the key) is hashed piece
// by piece, with no copy at all. When a key must be staged because its bytes
// change (normalising), they go into a stack buffer up to
// kStackStagingBytes and a pooled buffer above: never zeroed, never a fresh
// heap allocation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "spillway/common/buffer_pool.h"
#include "spillway/common/status.h"

namespace spillway {

// Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2) of `data`.
uint32_t murmur2(std::span<const std::byte> data) noexcept;
// murmur2 of the concatenation of `pieces`, computed without joining them.
uint32_t murmur2(std::span<const std::span<const std::byte>> pieces) noexcept;

// Kafka's partition for a hash. Precondition: partitions > 0.
inline int32_t partition_for_hash(uint32_t hash, int32_t partitions) noexcept {
  return static_cast<int32_t>((hash & 0x7fffffffu) % static_cast<uint32_t>(partitions));
}

class KeyPartitioner {
 public:
  static constexpr std::size_t kStackStagingBytes = 256;

  // `pool` backs staging above kStackStagingBytes and must outlive this.
  explicit KeyPartitioner(BufferPool& pool = BufferPool::global()) noexcept : pool_(&pool) {}

  // Partition of `key`, hashed where it lies (no staging).
  // Precondition: partitions > 0.
  static int32_t partition(std::span<const std::byte> key, int32_t partitions) noexcept {
    return partition_for_hash(murmur2(key), partitions);
  }

  // Partition of a key that has to be staged: `fill(std::span<std::byte>)`
  // must write exactly `size` bytes into the span it is given (which holds
  // garbage before). The staged bytes are hashed and dropped.
  // kResourceExhausted if `size` needs a pooled buffer the pool refuses
  // (or more than BufferPool::kMaxBufferSize). Precondition: partitions > 0.
  template <typename Fill>
  Result<int32_t> partition_staged(std::size_t size, Fill&& fill, int32_t partitions) noexcept {
    if (size <= kStackStagingBytes) {
      std::array<std::byte, kStackStagingBytes> stack;  // deliberately uninitialised
      std::span<std::byte> s(stack.data(), size);
      fill(s);
      return partition(s, partitions);
    }
    std::span<std::byte> rented = pool_->rent(size);
    if (rented.empty()) {
      return Status(ErrorCode::kResourceExhausted, "no pooled buffer to stage a key");
    }
    std::span<std::byte> s = rented.first(size);
    fill(s);
    const int32_t p = partition(s, partitions);
    pool_->give_back(rented.data());
    return p;
  }

  // Partition of `prefix` followed by `key` (e.g. a topic-scoped key),
  // hashed in place without joining them. Precondition: partitions > 0.
  static int32_t partition_prefixed(std::span<const std::byte> prefix,
                                    std::span<const std::byte> key, int32_t partitions) noexcept {
    const std::span<const std::byte> pieces[] = {prefix, key};
    return partition_for_hash(murmur2(pieces), partitions);
  }

 private:
  BufferPool* pool_;
};

}  // namespace spillway
