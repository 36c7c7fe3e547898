// Kafka RecordBatch v2 (magic 2): the one batch format Spillway uses on the
// wire and on disk (docs/storage-format.md is the spec this code follows).
//
// This header gives header access and validation for bytes received from a
// peer or read from disk, the setters for the two fields the broker assigns
// (outside the CRC), and a zero-copy reader of the records inside a batch.
// Building batches is in batch_builder.h. Nothing here allocates on success.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "spillway/common/status.h"

namespace spillway::batch {

// Byte offsets of the header fields (all big-endian).
constexpr std::size_t kBaseOffsetPos = 0;        // int64
constexpr std::size_t kBatchLengthPos = 8;       // int32: bytes after this field
constexpr std::size_t kLeaderEpochPos = 12;      // int32 partitionLeaderEpoch
constexpr std::size_t kMagicPos = 16;            // int8, always 2
constexpr std::size_t kCrcPos = 17;              // uint32 CRC-32C of [kAttributesPos, end)
constexpr std::size_t kAttributesPos = 21;       // int16
constexpr std::size_t kLastOffsetDeltaPos = 23;  // int32
constexpr std::size_t kBaseTimestampPos = 27;    // int64
constexpr std::size_t kMaxTimestampPos = 35;     // int64
constexpr std::size_t kProducerIdPos = 43;       // int64
constexpr std::size_t kProducerEpochPos = 51;    // int16
constexpr std::size_t kBaseSequencePos = 53;     // int32
constexpr std::size_t kRecordCountPos = 57;      // int32
constexpr std::size_t kHeaderSize = 61;          // records start here

// batch_length counts the bytes after base offset and itself.
constexpr std::size_t kLengthPrefixSize = 12;
// Smallest legal batch_length: a header with no records.
constexpr int32_t kMinBatchLength = static_cast<int32_t>(kHeaderSize - kLengthPrefixSize);
// Caller-independent cap on a batch's total size. parse_header rejects any
// batch_length above it before anyone sizes a buffer from it; callers apply
// their own (smaller) configured limit in validate().
constexpr std::size_t kMaxBatchBytes = 64u << 20;
// Cap on the decompressed records block of a compressed batch (any codec):
// the bound that defeats a decompression bomb. Validation stops
// decompressing past it.
constexpr std::size_t kMaxRecordsBytes = 64u << 20;

constexpr int8_t kMagic = 2;

// Attribute bits.
constexpr int16_t kCompressionMask = 0x07;
constexpr int16_t kTimestampTypeLogAppend = 0x08;
constexpr int16_t kTransactionalBit = 0x10;
constexpr int16_t kControlBit = 0x20;

enum class Compression : int8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

// The decoded 61-byte header. Plain values; holds no pointer into the batch.
struct BatchHeader {
  int64_t base_offset;
  int32_t batch_length;
  int32_t partition_leader_epoch;
  int8_t magic;
  uint32_t crc;
  int16_t attributes;
  int32_t last_offset_delta;
  int64_t base_timestamp;
  int64_t max_timestamp;
  int64_t producer_id;
  int16_t producer_epoch;
  int32_t base_sequence;
  int32_t record_count;

  // Bytes the whole batch occupies: 12 + batch_length.
  std::size_t total_size() const noexcept {
    return kLengthPrefixSize + static_cast<std::size_t>(batch_length);
  }
  // Codec from the low three attribute bits (values 5..7 are possible in
  // unvalidated input; validate() rejects them).
  Compression compression() const noexcept {
    return static_cast<Compression>(attributes & kCompressionMask);
  }
  // Offset of the batch's last record: base_offset + last_offset_delta.
  int64_t last_offset() const noexcept { return base_offset + last_offset_delta; }
};

// Decodes the header from the first kHeaderSize bytes of `bytes`. Checks
// only what the header alone can tell: enough bytes for the header, magic
// == 2, kMinBatchLength <= batch_length <= kMaxBatchBytes - 12. It does NOT
// require the rest of the batch to be present, so storage can learn a
// batch's size from a partial read. Error code: kCorruptMessage.
Result<BatchHeader> parse_header(std::span<const std::byte> bytes) noexcept;

// Full validation of one complete batch, as a broker does before appending:
// `batch` must be exactly total_size() bytes; total_size() <= max_batch_bytes
// (else kBatchTooLarge); CRC-32C over [kAttributesPos, end) matches; codec is
// none, gzip, snappy (raw or snappy-java framed), lz4 (frame format) or
// zstd; record_count >= 0 and == last_offset_delta + 1 when > 0; and every
// record decodes exactly (each varint and length in bounds, offset deltas 0,
// 1, 2, ...; no trailing bytes, no trailing compressed data). A compressed
// records block is decompressed through a bounded stack window (snappy: a
// reused per-thread buffer, see common/src/snappy_decompressor.h) and never
// to more than kMaxRecordsBytes: decompression stops at the bound. Other
// failures: kCorruptMessage (an unknown codec 5-7 included), or
// kResourceExhausted if a per-thread codec context cannot be allocated. No
// heap allocation on success once this thread's codec contexts exist.
Status validate(std::span<const std::byte> batch, std::size_t max_batch_bytes) noexcept;

// What a broker accepts from a producer: validate(), then the checks Kafka
// applies only to batches from clients (LogValidator, origin CLIENT): at least
// one record. An empty batch (record_count 0) is well formed, and may sit in
// a log written by an older broker, so recovery keeps using validate(); a
// producer's empty batch is refused with kInvalidArgument, so it never takes
// an offset (docs/protocol.md, "Produce").
Status validate_produced(std::span<const std::byte> batch, std::size_t max_batch_bytes) noexcept;

// Overwrite the fields the broker assigns. Neither is covered by the CRC, so
// a validated batch stays valid. Precondition: batch.size() >= kHeaderSize.
void set_base_offset(std::span<std::byte> batch, int64_t base_offset) noexcept;
void set_partition_leader_epoch(std::span<std::byte> batch, int32_t epoch) noexcept;

// The records block (everything after the header). For kNone it is the
// records themselves; otherwise the compressed records (gzip members, snappy,
// lz4 frames or zstd frames).
// Precondition: batch.size() >= kHeaderSize.
inline std::span<const std::byte> records_block(std::span<const std::byte> batch) noexcept {
  return batch.subspan(kHeaderSize);
}

// Decompresses the records block of `batch` (gzip, snappy, lz4 or zstd) into
// `out`, returning the filled prefix of `out`; for an uncompressed batch,
// returns records_block(batch) itself and leaves `out` alone. kCorruptMessage
// if the block is malformed or truncated, or the codec unknown;
// kBatchTooLarge if the records need more than out.size() bytes (out is then
// partly overwritten). Use with a pooled buffer for RecordReader on
// compressed batches. Precondition: parse_header(batch) succeeded.
Result<std::span<const std::byte>> decompress_records(std::span<const std::byte> batch,
                                                      std::span<std::byte> out) noexcept;

// One header of a record; spans point into the records block.
struct RecordHeaderView {
  std::span<const std::byte> key;
  std::span<const std::byte> value;
  bool value_is_null;
};

// One record; spans point into the records block and live as long as it.
// A null key/value (length -1) has an empty span and *_is_null set.
struct RecordView {
  int8_t attributes;
  int64_t timestamp_delta;
  int32_t offset_delta;
  std::span<const std::byte> key;
  bool key_is_null;
  std::span<const std::byte> value;
  bool value_is_null;
  int32_t header_count;
  std::span<const std::byte> headers;  // the encoded headers; see HeaderReader
};

// Walks `record_count` records of an uncompressed records block without
// copying. Every length is bounds-checked, so it is safe on unvalidated
// input: on malformed bytes next() returns false and status() explains.
// Single-threaded; the block must outlive the reader and its views.
class RecordReader {
 public:
  RecordReader(std::span<const std::byte> records, int32_t record_count) noexcept
      : pos_(records.data()), end_(records.data() + records.size()), remaining_(record_count) {}

  // Decodes the next record into *out. Returns true iff one was decoded;
  // false at the end (status().ok()) or on malformed input (!status().ok()).
  bool next(RecordView* out) noexcept;

  // Ok unless next() hit malformed input. After the last record, also
  // reports bytes left over in the block as an error.
  const Status& status() const noexcept { return status_; }

 private:
  const std::byte* pos_;
  const std::byte* end_;
  int32_t remaining_;
  int32_t index_ = 0;
  Status status_;
};

// Walks the headers of one RecordView. Same contract as RecordReader.
class HeaderReader {
 public:
  explicit HeaderReader(const RecordView& record) noexcept
      : pos_(record.headers.data()),
        end_(record.headers.data() + record.headers.size()),
        remaining_(record.header_count) {}
  bool next(RecordHeaderView* out) noexcept;
  const Status& status() const noexcept { return status_; }

 private:
  const std::byte* pos_;
  const std::byte* end_;
  int32_t remaining_;
  Status status_;
};

}  // namespace spillway::batch
