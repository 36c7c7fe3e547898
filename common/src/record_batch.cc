// RecordBatch v2 header access, validation and the zero-copy record reader.
// The record grammar lives once, in record_grammar.h, and runs over either
// the batch bytes themselves or a bounded decompression window (any codec:
// decompressor.h).
#include "spillway/common/record_batch.h"

#include <array>
#include <cstring>
#include <string>

#include "any_decompressor.h"
#include "decompressed_source.h"
#include "record_grammar.h"
#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"

namespace spillway::batch {
namespace {

Status corrupt(const char* what) {
  return Status(ErrorCode::kCorruptMessage, what);
}

Status corrupt_record(int32_t index, const char* what) {
  return Status(ErrorCode::kCorruptMessage,
                "record " + std::to_string(index) + ": " + std::string(what));
}

// A records block decoded straight from memory.
class SpanSource {
 public:
  SpanSource(const std::byte* begin, const std::byte* end) : begin_(begin), p_(begin), end_(end) {}
  uint64_t consumed() const { return static_cast<uint64_t>(p_ - begin_); }
  bool varint(uint64_t limit, int32_t* out) {
    const std::byte* q = varint::get_varint(p_, bounded(limit), out);
    if (!q) return false;
    p_ = q;
    return true;
  }
  bool varlong(uint64_t limit, int64_t* out) {
    const std::byte* q = varint::get_varlong(p_, bounded(limit), out);
    if (!q) return false;
    p_ = q;
    return true;
  }
  bool byte(uint64_t limit, uint8_t* out) {
    if (p_ >= bounded(limit)) return false;
    *out = static_cast<uint8_t>(*p_++);
    return true;
  }
  // Precondition (checked by the grammar): consumed() + n <= limit <= size.
  bool take(std::size_t n, std::span<const std::byte>* view) {
    if (static_cast<std::size_t>(end_ - p_) < n) return false;
    *view = {p_, n};
    p_ += n;
    return true;
  }
  const std::byte* position() const { return p_; }
  bool at_end() const { return p_ == end_; }

 private:
  const std::byte* bounded(uint64_t limit) const {
    uint64_t room = limit - consumed();
    return room < static_cast<uint64_t>(end_ - p_) ? p_ + room : end_;
  }
  const std::byte* begin_;
  const std::byte* p_;
  const std::byte* end_;
};

// Why a decompressed walk stopped, blaming record `index` (if >= 0).
Status decompression_failed(const DecompressedSource& src, int32_t index) {
  return index < 0 ? Status(src.error_code(), src.error())
                   : Status(src.error_code(),
                            "record " + std::to_string(index) + ": " + std::string(src.error()));
}

Status unknown_codec(Compression c) {
  return Status(ErrorCode::kCorruptMessage,
                "compression codec " + std::to_string(static_cast<int>(c)) +
                    " is not one of none (0), gzip (1), snappy (2), lz4 (3), zstd (4)");
}

template <typename Source>
Status walk_all(Source& src, int32_t count) {
  RecordView view;
  for (int32_t i = 0; i < count; ++i) {
    if (const char* err = parse_record(src, i, &view)) {
      if constexpr (std::is_same_v<Source, DecompressedSource>) {
        if (src.error()) return decompression_failed(src, i);
      }
      return corrupt_record(i, err);
    }
  }
  if (!src.at_end()) {
    if constexpr (std::is_same_v<Source, DecompressedSource>) {
      if (src.error()) return decompression_failed(src, -1);
    }
    return corrupt("records block has bytes after the last record");
  }
  return Status::Ok();
}

}  // namespace

Result<BatchHeader> parse_header(std::span<const std::byte> bytes) noexcept {
  if (bytes.size() < kHeaderSize) return corrupt("batch shorter than its 61-byte header");
  const std::byte* p = bytes.data();
  BatchHeader h;
  h.base_offset = load_be<int64_t>(p + kBaseOffsetPos);
  h.batch_length = load_be<int32_t>(p + kBatchLengthPos);
  h.partition_leader_epoch = load_be<int32_t>(p + kLeaderEpochPos);
  h.magic = load_be<int8_t>(p + kMagicPos);
  h.crc = load_be<uint32_t>(p + kCrcPos);
  h.attributes = load_be<int16_t>(p + kAttributesPos);
  h.last_offset_delta = load_be<int32_t>(p + kLastOffsetDeltaPos);
  h.base_timestamp = load_be<int64_t>(p + kBaseTimestampPos);
  h.max_timestamp = load_be<int64_t>(p + kMaxTimestampPos);
  h.producer_id = load_be<int64_t>(p + kProducerIdPos);
  h.producer_epoch = load_be<int16_t>(p + kProducerEpochPos);
  h.base_sequence = load_be<int32_t>(p + kBaseSequencePos);
  h.record_count = load_be<int32_t>(p + kRecordCountPos);
  if (h.magic != kMagic) {
    return Status(ErrorCode::kCorruptMessage,
                  "batch magic is " + std::to_string(h.magic) + ", only 2 is supported");
  }
  if (h.batch_length < kMinBatchLength) return corrupt("batch length shorter than the header");
  if (static_cast<std::size_t>(h.batch_length) > kMaxBatchBytes - kLengthPrefixSize) {
    return corrupt("batch length above the 64 MiB hard limit");
  }
  return h;
}

Status validate(std::span<const std::byte> batch, std::size_t max_batch_bytes) noexcept {
  Result<BatchHeader> parsed = parse_header(batch);
  if (!parsed.ok()) return std::move(parsed).take_status();
  const BatchHeader& h = *parsed;
  if (h.total_size() > max_batch_bytes) {
    return Status(ErrorCode::kBatchTooLarge, "batch of " + std::to_string(h.total_size()) +
                                                 " bytes exceeds the limit of " +
                                                 std::to_string(max_batch_bytes));
  }
  if (batch.size() != h.total_size()) {
    return Status(ErrorCode::kCorruptMessage, "batch length says " +
                                                  std::to_string(h.total_size()) + " bytes, got " +
                                                  std::to_string(batch.size()));
  }
  if (crc32c(batch.subspan(kAttributesPos)) != h.crc) return corrupt("batch CRC mismatch");
  if (h.record_count < 0) return corrupt("negative record count");
  if (h.record_count > 0 && static_cast<int64_t>(h.last_offset_delta) + 1 != h.record_count) {
    return corrupt("record count is not last offset delta + 1");
  }
  if (h.record_count == 0 && h.last_offset_delta < 0) return corrupt("negative last offset delta");
  std::span<const std::byte> block = records_block(batch);
  switch (h.compression()) {
    case Compression::kNone: {
      if (static_cast<uint64_t>(h.record_count) * kMinRecordBytes > block.size()) {
        return corrupt("record count exceeds what the records block can hold");
      }
      SpanSource src(block.data(), block.data() + block.size());
      return walk_all(src, h.record_count);
    }
    default: {
      if (static_cast<uint64_t>(h.record_count) * kMinRecordBytes > kMaxRecordsBytes) {
        return corrupt("record count exceeds the decompressed records limit");
      }
      AnyDecompressor any;
      Decompressor* d = any.start(h.compression(), block, kMaxRecordsBytes);
      if (!d) return unknown_codec(h.compression());
      std::array<std::byte, 16 * 1024> window;  // deliberately uninitialized
      DecompressedSource src(*d, window);
      return walk_all(src, h.record_count);
    }
  }
}

Status validate_produced(std::span<const std::byte> batch, std::size_t max_batch_bytes) noexcept {
  SPILLWAY_RETURN_IF_ERROR(validate(batch, max_batch_bytes));
  // validate() succeeded, so the header parses.
  if (load_be<int32_t>(batch.data() + kRecordCountPos) == 0) {
    return Status(ErrorCode::kInvalidArgument, "batch has no records (record count 0)");
  }
  return Status::Ok();
}

void set_base_offset(std::span<std::byte> batch, int64_t base_offset) noexcept {
  store_be<int64_t>(batch.data() + kBaseOffsetPos, base_offset);
}

void set_partition_leader_epoch(std::span<std::byte> batch, int32_t epoch) noexcept {
  store_be<int32_t>(batch.data() + kLeaderEpochPos, epoch);
}

Result<std::span<const std::byte>> decompress_records(std::span<const std::byte> batch,
                                                      std::span<std::byte> out) noexcept {
  const auto c =
      static_cast<Compression>(load_be<int16_t>(batch.data() + kAttributesPos) & kCompressionMask);
  std::span<const std::byte> block = records_block(batch);
  if (c == Compression::kNone) return block;
  AnyDecompressor any;
  Decompressor* d = any.start(c, block, kMaxRecordsBytes);
  if (!d) return unknown_codec(c);
  std::size_t filled = 0;
  for (;;) {
    std::span<const std::byte> piece;
    std::byte probe;
    // Once `out` is full, a one-byte probe tells whether more output follows.
    const bool full = filled == out.size();
    std::span<std::byte> window = full ? std::span<std::byte>(&probe, 1) : out.subspan(filled);
    const Decompressor::Pull p = d->pull(window, &piece);
    if (p == Decompressor::Pull::kEnd) break;
    if (p == Decompressor::Pull::kError) return d->error_status();
    if (full) return Status(ErrorCode::kBatchTooLarge, "decompressed records exceed the buffer");
    if (piece.data() != window.data()) std::memcpy(window.data(), piece.data(), piece.size());
    filled += piece.size();
  }
  return std::span<const std::byte>(out.data(), filled);
}

bool RecordReader::next(RecordView* out) noexcept {
  if (!status_.ok()) return false;
  if (remaining_ <= 0) {
    if (pos_ != end_) {
      status_ = corrupt("records block has bytes after the last record");
    }
    return false;
  }
  SpanSource src(pos_, end_);
  if (const char* err = parse_record(src, index_, out)) {
    status_ = corrupt_record(index_, err);
    return false;
  }
  pos_ = src.position();
  --remaining_;
  ++index_;
  return true;
}

bool HeaderReader::next(RecordHeaderView* out) noexcept {
  if (!status_.ok() || remaining_ <= 0) return false;
  SpanSource src(pos_, end_);
  if (const char* err = parse_header_entry(src, static_cast<uint64_t>(end_ - pos_), out)) {
    status_ = corrupt(err);
    return false;
  }
  pos_ = src.position();
  --remaining_;
  return true;
}

}  // namespace spillway::batch
