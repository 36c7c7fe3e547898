// BatchBuilder: encodes a Kafka RecordBatch v2 straight into a WriteBuffer,
// optionally zstd-compressing the records block as it goes (attributes codec
// 4), then patches the header and the CRC-32C in place. The format is in
// docs/storage-format.md; the reader side is record_batch.h.
//
// Nothing is staged on the heap: uncompressed records go directly into the
// WriteBuffer; compressed ones stream through a per-thread zstd context into
// space reserved in it. Steady state allocates nothing.
//
// Failure guarantee: when start/append/finish fail, the WriteBuffer is
// rewound to where the batch began (bytes written before it are untouched)
// and the builder must be start()ed again.
//
// Concurrency: one thread; the WriteBuffer must not be written by anyone
// else between start() and finish().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "spillway/common/record_batch.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

typedef struct ZSTD_CCtx_s ZSTD_CCtx;

namespace spillway::batch {

struct BuilderOptions {
  Compression compression = Compression::kNone;  // kNone or kZstd
  int zstd_level = 3;
  int64_t base_offset = 0;  // the broker assigns the real one on append
  int32_t partition_leader_epoch = -1;
  // Defaults to the first record's timestamp.
  std::optional<int64_t> base_timestamp;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  // Attribute bits besides the codec (timestamp type, transactional, ...).
  int16_t extra_attributes = 0;
};

struct RecordHeaderInput {
  std::span<const std::byte> key;
  std::span<const std::byte> value;
  bool value_is_null = false;
};

// One record to append. Spans are read during append() only.
struct RecordInput {
  int64_t timestamp = 0;  // milliseconds since the epoch
  std::span<const std::byte> key;
  bool key_is_null = false;
  std::span<const std::byte> value;
  bool value_is_null = false;
  std::span<const RecordHeaderInput> headers;
};

class BatchBuilder {
 public:
  BatchBuilder() noexcept = default;
  ~BatchBuilder();
  BatchBuilder(const BatchBuilder&) = delete;
  BatchBuilder& operator=(const BatchBuilder&) = delete;

  // Begins a batch at the end of `out`, which must outlive the batch.
  // kInvalidArgument for a codec other than none/zstd; kResourceExhausted if
  // the buffer or a zstd context cannot be had.
  Status start(WriteBuffer& out, const BuilderOptions& options) noexcept;

  // Appends one record (offset delta = number of records so far).
  // kInvalidArgument if a length does not fit the format; kBatchTooLarge
  // once the batch passes kMaxBatchBytes.
  Status append(const RecordInput& record) noexcept;

  // Completes the header (lengths, counts, timestamps, CRC) and returns the
  // batch's total size; its bytes are the last that many of `out`.
  // kBatchTooLarge above kMaxBatchBytes.
  Result<std::size_t> finish() noexcept;

  int32_t record_count() const noexcept { return count_; }

 private:
  struct InPlace;  // the two sinks of write_record
  struct Emitting;
  template <typename Sink>
  Status write_record(const RecordInput& r, std::size_t body, int64_t ts_delta,
                      Sink& sink) noexcept;
  Status emit(std::span<const std::byte> bytes) noexcept;
  Status emit_small(const std::byte* p, std::size_t n) noexcept;
  Status flush_staging() noexcept;
  Status compress(std::span<const std::byte> in, bool end) noexcept;
  Status fail(Status st) noexcept;
  void drop_cctx() noexcept;

  WriteBuffer* out_ = nullptr;
  WriteBuffer::Mark start_mark_{};
  uint64_t start_offset_ = 0;
  std::byte* header_ = nullptr;  // the reserved 61 bytes, patched by finish()
  BuilderOptions options_;
  ZSTD_CCtx* cctx_ = nullptr;
  int32_t count_ = 0;
  int64_t base_timestamp_ = 0;
  int64_t max_timestamp_ = 0;
  // Small record fields bound for zstd, gathered so that zstd sees few,
  // larger inputs. Deliberately not initialised.
  std::size_t staged_ = 0;
  std::byte staging_[512];
};

}  // namespace spillway::batch
