// Batch: a batch of records the producer has staged for one partition, from
// send() until its callbacks have run. The RecordAccumulator
// (record_accumulator.h) owns and recycles Batch objects; the I/O thread
// (producer_sender.h) holds a batch while it is in flight.
//
// Batches are linked intrusively: one `next` pointer serves the partition
// queue, a request's batch list, the list of completed batches and the free
// list, so moving a batch between them never allocates.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>

#include "spillway/common/ids.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::producer_internal {

using Clock = std::chrono::steady_clock;

struct TopicQueues;

struct Batch {
  Batch* next = nullptr;                        // the list the batch is on
  WriteBuffer staging{std::span<std::byte>()};  // entries (producer_staging.h)
  TopicQueues* topic = nullptr;
  PartitionId partition{0};
  int32_t count = 0;      // records staged
  std::size_t bytes = 0;  // staged entry bytes, an estimate of the batch size
  Clock::time_point created;
  Clock::time_point deadline;      // created + delivery_timeout
  Clock::time_point retry_at;      // not sent again before this
  int attempts = 0;                // sends after the first
  bool sealed = false;             // takes no more records
  Offset base_offset = kNoOffset;  // the outcome, once complete
  Status error;
  // Idempotence: fixed when the batch is first drained for sending and
  // kept for every retry, so the broker recognises a retry of a batch it
  // already stored. -1 when the batch carries no producer id.
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  // Its place in its partition's send order, fixed when first drained (0:
  // never drained). A retry goes back into the queue at this place, so
  // batches of a partition that were in flight together are sent again in
  // their order whatever order their answers came in.
  uint64_t drained = 0;
};

// Pushes `b` onto the list `*list` (newest first).
inline void push_front(Batch** list, Batch* b) {
  b->next = *list;
  *list = b;
}

}  // namespace spillway::producer_internal
