// Streaming encoder of a Produce request body (api key 1, version 0; layout
// in docs/protocol.md, "Produce"), for a producer that builds each record
// batch straight into the request buffer: sizes and counts are not known up
// front, so placeholders are written and patched as each part ends. The
// bytes are exactly those encode_produce_request() writes for the same data.
#pragma once

#include <cstdint>
#include <string_view>

#include "spillway/common/messages/produce.h"

namespace spillway::messages {

// Usage: construct (writes acks, timeout and a placeholder topic count),
// then for each topic begin_topic(), and for each of its partitions
// begin_partition(), append exactly one RecordBatch v2 to buffer(),
// end_partition(); finally finish(). Partitions of one topic must be
// consecutive. The buffer must outlive the writer. Allocates nothing.
class ProduceRequestWriter {
 public:
  ProduceRequestWriter(WriteBuffer& out, Acks acks, int32_t timeout_ms) noexcept;

  // Starts the next topic, ending the current one (if any).
  void begin_topic(std::string_view name) noexcept;
  // Starts a partition entry of the current topic: writes the partition and
  // a placeholder batch length. Precondition: begin_topic() was called.
  void begin_partition(int32_t partition) noexcept;
  // Patches the batch length with the bytes appended since begin_partition();
  // a batch over 2 GiB is an error (kInvalidArgument).
  void end_partition() noexcept;
  // Patches the counts. Returns the first failure of any step (a refused
  // write, a name over 65535 bytes); the buffer then holds a partial body,
  // which the caller must discard. Bytes the caller appended itself are not
  // covered: check those writes' own statuses.
  Status finish() noexcept;

  // The first failure so far (ok while none).
  const Status& status() const noexcept { return w_.ok() ? too_large_ : w_.status(); }
  bool ok() const noexcept { return w_.ok() && too_large_.ok(); }
  WriteBuffer& buffer() noexcept { return w_.buffer(); }

 private:
  void end_topic() noexcept;

  wire::WireWriter w_;
  Status too_large_;  // a batch over 2 GiB; later steps do nothing
  uint64_t topic_count_pos_ = 0;
  uint64_t partition_count_pos_ = 0;
  uint64_t batch_length_pos_ = 0;
  int32_t topic_count_ = 0;
  int32_t partition_count_ = 0;
};

}  // namespace spillway::messages
