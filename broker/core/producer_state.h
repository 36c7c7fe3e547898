// ProducerStateTable: one partition's idempotent-producer state, as Kafka
// keeps it (its ProducerStateManager): per producer id the epoch and the
// sequence ranges and offsets of its last five appended batches. The
// partition asks check() before appending a batch whose header carries a
// producer id, and tells record() after the log took it; the rules are
// Kafka's and docs/protocol.md ("Idempotent producers") spells them out.
// The state is rebuilt on start from a snapshot (serialize()/parse()) plus
// the batch headers the log holds past the snapshot's offset.
//
// Threading: owned by one Partition and used on its owner core only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "spillway/common/ids.h"
#include "spillway/common/record_batch.h"
#include "spillway/common/status.h"

namespace spillway::broker {

// One appended batch of a producer, as far as sequences go.
struct ProducerBatch {
  int32_t first_seq = -1;
  int32_t last_seq = -1;
  int64_t base_offset = -1;
  int64_t last_offset = -1;
};

// What check() found: append the batch, or it is a retry of one already in
// the log (answer with `original`'s offsets and do not append it again).
struct SequenceCheck {
  bool duplicate = false;
  ProducerBatch original;
};

class ProducerStateTable {
 public:
  // Kafka keeps the last five batches per producer, and its clients allow at
  // most five requests in flight per connection with idempotence on.
  static constexpr size_t kCachedBatches = 5;
  // The producer id of a batch from a non-idempotent producer.
  static constexpr int64_t kNoProducerId = -1;

  struct Entry {
    int16_t epoch = -1;
    int64_t last_update_ms = 0;  // broker clock; what expiry looks at
    uint8_t count = 0;           // cached batches, at most kCachedBatches
    uint8_t next = 0;            // ring position the next batch goes to
    std::array<ProducerBatch, kCachedBatches> batches{};
    // The newest cached batch; precondition count > 0.
    const ProducerBatch& last() const {
      return batches[(next + kCachedBatches - 1) % kCachedBatches];
    }
  };

  // The last sequence of a batch of `record_count` records starting at
  // `first_seq`, wrapping past INT32_MAX to 0 as Kafka does.
  static int32_t last_sequence(int32_t first_seq, int32_t record_count);

  // Decides whether a produced batch (header as the client sent it) may be
  // appended. Errors, all per partition: kInvalidProducerEpoch (epoch older
  // than the producer's), kOutOfOrderSequence (a gap, a new epoch not
  // starting at 0, or a retry older than the cached batches),
  // kInvalidArgument (a producer id with a negative sequence or epoch),
  // kUnknownProducerId (a producer id the table does not know, at a
  // sequence other than 0: stricter than Kafka >= 2.5, which takes any;
  // see the .cc). A header without a producer id is always appended.
  Result<SequenceCheck> check(const batch::BatchHeader& header) const;

  // Records a batch the log stored at [base, last] (after check(), or while
  // rebuilding from the log, where no rule is applied). Ignores batches
  // without a producer id. Allocates only for a producer id not yet seen.
  void record(const batch::BatchHeader& header, Offset base, Offset last, int64_t now_ms);

  // Drops producers whose last append is at least `expiration_ms` before
  // `now_ms`; returns how many.
  size_t expire(int64_t now_ms, int64_t expiration_ms);

  // The snapshot: every entry, and `next_offset`, the log end offset the
  // state covers (recovery replays the log from there). A binary blob with
  // a CRC-32C (docs/storage-format.md, "Producer state snapshot").
  std::string serialize(Offset next_offset) const;
  // Replaces the table with a snapshot's content and returns its
  // next_offset. kCorruptMessage when `bytes` is not a valid snapshot (the
  // table is then unchanged).
  Result<Offset> parse(std::string_view bytes);

  const Entry* find(int64_t producer_id) const;
  size_t size() const { return producers_.size(); }
  void clear() { producers_.clear(); }

 private:
  std::unordered_map<int64_t, Entry> producers_;
};

}  // namespace spillway::broker
