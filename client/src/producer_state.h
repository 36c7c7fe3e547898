// The producer's accumulator state: a Batch of staged records, the queue of
// batches of each partition, and what the producer knows of each topic.
//
// Batches are pooled and linked intrusively (one `next` pointer serves the
// partition queue, a request's batch list, the completed list and the free
// list), so moving a batch between them never allocates. Guarded by the
// producer's mutex, except a sealed batch, which only the I/O thread touches.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::producer_internal {

using Clock = std::chrono::steady_clock;

struct TopicState;

struct Batch {
  Batch* next = nullptr;                        // partition queue, request list or free list
  WriteBuffer staging{std::span<std::byte>()};  // entries (producer_staging.h)
  TopicState* topic = nullptr;
  int32_t partition = 0;
  int32_t count = 0;
  std::size_t bytes = 0;  // staged entry bytes, an estimate of the batch size
  Clock::time_point created;
  Clock::time_point deadline;
  Clock::time_point retry_at;
  int attempts = 0;
  bool sealed = false;
  int64_t base_offset = -1;  // the outcome, once complete
  Status error;
};

struct PartitionState {
  Batch* head = nullptr;  // oldest queued batch; the tail may still be open
  Batch* tail = nullptr;
  bool in_flight = false;  // at most one batch per partition on the wire
  // Ok, or the failure that fenced the partition: a record of it failed, so
  // no later record may be appended (producer_fence.cc).
  Status fenced;
};

struct TopicState {
  std::string name;
  int32_t partitions = -1;  // -1 until metadata answers
  bool metadata_wanted = false;
  bool metadata_in_flight = false;
  uint64_t metadata_generation = 0;  // bumped by every metadata answer
  Status metadata_error;
  std::vector<PartitionState> parts;
  int32_t sticky = 0;  // partition for keyless records
};

// Closes the open batch of a partition: the keyless sticky partition
// moves on when its batch closes, as Kafka's sticky partitioner does.
inline void on_batch_closed(TopicState* t, int32_t partition) {
  if (t->sticky == partition && t->partitions > 0) t->sticky = (t->sticky + 1) % t->partitions;
}

}  // namespace spillway::producer_internal
