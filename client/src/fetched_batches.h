// FetchedBatches: what the consumer has fetched but not yet handed out, and
// the records of the current poll.
//
// Owns: per partition, a view of the whole batches a Fetch response
// returned for it (the bytes live in the channel's reused response buffer,
// which the consumer does not overwrite until these are handed out); the
// buffers zstd batches are decompressed into, reused across polls; the
// vector of ConsumerRecords a poll returns, whose views point into those
// bytes.
//
// Integrity: every batch's CRC-32C is checked before any of its fields is
// believed or any of its records handed out. A batch that fails the check
// or does not decode stays at the head of what was fetched: the records
// before it are handed out, its error is returned by the next take(), and
// by every take() after that until the consumer drops what was fetched
// (a seek), so nothing after it is handed out either. A batch is handed out
// whole or not at all.
//
// Concurrency: the consumer's thread only. Steady state allocates nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "consumer_assignment.h"
#include "spillway/common/record_batch.h"
#include "spillway/common/status.h"
#include "spillway/consumer.h"

namespace spillway::consumer_internal {

class FetchedBatches {
 public:
  // A poll hands out about `max_poll_records` records (whole batches, so it
  // may pass it).
  explicit FetchedBatches(std::size_t max_poll_records);

  // Sizes the list of fetched partitions for `partitions` of them.
  void reserve(std::size_t partitions) { pending_.reserve(partitions); }
  // Forgets everything fetched (after a seek or a new assignment).
  void clear() noexcept { pending_.clear(); }
  bool empty() const noexcept { return pending_.empty(); }

  // Starts a poll: the records of the last one are dropped and the
  // decompression buffers reused.
  void start_poll() noexcept {
    records_.clear();
    buffers_used_ = 0;
  }
  // Adds the whole batches a Fetch returned for assigned partition `index`
  // (a view that must stay valid until they are handed out).
  void add(std::size_t index, std::span<const std::byte> batches) {
    pending_.push_back({index, batches});
  }
  // For each partition with batches not yet handed out: fn(index, end),
  // `end` the offset past its last whole batch (by the batch headers; the
  // CRCs are checked when the batches are handed out), or kNoOffset if
  // none is whole.
  template <typename Fn>
  void for_each_end(Fn&& fn) const {
    for (const Pending& p : pending_) fn(p.index, end_of(p.batches));
  }
  // Hands out whole batches into records() until about max_poll_records are
  // there, advancing the partitions' positions past them. Returns the error
  // of a batch that cannot be handed out (naming topic, partition and
  // offset), once records() holds nothing more to return first; ok
  // otherwise.
  Status take(Assignment& assignment);

  // The records of this poll so far.
  std::span<const ConsumerRecord> records() const noexcept { return records_; }

 private:
  // Fetched batches of one partition not yet handed out.
  struct Pending {
    std::size_t index;                   // into Assignment::partitions()
    std::span<const std::byte> batches;  // whole batches still to read
  };
  // A buffer for decompressed records blocks.
  struct Buffer {
    std::unique_ptr<std::byte[]> data;
    std::size_t capacity = 0;
  };

  // Checks one complete batch of `a` (its CRC first) and appends its
  // records at or after the position to records_, advancing the position
  // past it. On error nothing of it is appended and the position stays.
  Status take_batch(AssignedPartition& a, const batch::BatchHeader& h,
                    std::span<const std::byte> bytes);
  static Offset end_of(std::span<const std::byte> batches) noexcept;
  // Decompresses a zstd batch's records block into the next free buffer.
  Result<std::span<const std::byte>> decompress(std::span<const std::byte> batch);

  const std::size_t max_poll_records_;
  std::vector<Pending> pending_;
  std::vector<ConsumerRecord> records_;
  std::vector<Buffer> buffers_;
  std::size_t buffers_used_ = 0;
};

}  // namespace spillway::consumer_internal
