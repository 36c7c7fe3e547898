// RecordBatch v2 header access, validation and the zero-copy record reader.
// The record grammar lives once, in record_grammar.h, and runs over either
// the batch bytes themselves or a bounded zstd decompression window.
#include "spillway/common/record_batch.h"

#include <zstd.h>

#include <array>
#include <string>

#include "record_grammar.h"
#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"
#include "zstd_contexts.h"

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

// A records block decompressed on the fly into a fixed window, never more
// than `bound` bytes in total. Values are skipped, not kept: validation only
// needs their lengths, so a record of any size passes through the window.
class ZstdSource {
 public:
  ZstdSource(ZSTD_DCtx* dctx, std::span<const std::byte> frame, std::span<std::byte> window,
             uint64_t bound)
      : dctx_(dctx), in_{frame.data(), frame.size(), 0}, window_(window), bound_(bound) {}

  uint64_t consumed() const { return consumed_; }
  const char* error() const { return error_; }

  bool byte(uint64_t limit, uint8_t* out) {
    if (consumed_ >= limit) return false;
    if (rpos_ == rend_ && !refill()) return false;
    *out = static_cast<uint8_t>(window_[rpos_++]);
    ++consumed_;
    return true;
  }
  bool varint(uint64_t limit, int32_t* out) {
    uint64_t u;
    if (!uvarint(limit, varint::kMaxVarint32Bytes, 32, &u)) return false;
    *out = varint::unzigzag32(static_cast<uint32_t>(u));
    return true;
  }
  bool varlong(uint64_t limit, int64_t* out) {
    uint64_t u;
    if (!uvarint(limit, varint::kMaxVarint64Bytes, 64, &u)) return false;
    *out = varint::unzigzag64(u);
    return true;
  }
  bool take(std::size_t n, std::span<const std::byte>* view) {
    *view = {};
    while (n > 0) {
      if (rpos_ == rend_ && !refill()) return false;
      std::size_t step = std::min(n, rend_ - rpos_);
      rpos_ += step;
      consumed_ += step;
      n -= step;
    }
    return true;
  }
  // True iff the stream is complete: every frame ended, all input used, and
  // no decompressed byte is left over.
  bool at_end() {
    if (rpos_ != rend_) return false;
    if (refill()) return false;
    return error_ == nullptr && frame_done_ && in_.pos == in_.size;
  }

 private:
  bool uvarint(uint64_t limit, std::size_t max_bytes, unsigned max_bits, uint64_t* out) {
    std::array<std::byte, varint::kMaxVarint64Bytes> buf;
    std::size_t n = 0;
    uint8_t b;
    do {
      if (n == max_bytes || !byte(limit, &b)) {
        // Let the decoder classify: truncated or overlong, both are errors.
        return false;
      }
      buf[n++] = static_cast<std::byte>(b);
    } while (b & 0x80);
    return varint::get_uvarint(buf.data(), buf.data() + n, max_bytes, max_bits, out) != nullptr;
  }

  bool refill() {
    if (error_) return false;
    rpos_ = rend_ = 0;
    if (frame_done_ && in_.pos == in_.size) return false;
    // One byte of room past the bound so that exceeding it is observable.
    uint64_t room = bound_ - produced_ + 1;
    ZSTD_outBuffer out{window_.data(),
                       static_cast<std::size_t>(std::min<uint64_t>(window_.size(), room)), 0};
    while (out.pos == 0) {
      std::size_t in_before = in_.pos;
      std::size_t r = ZSTD_decompressStream(dctx_, &out, &in_);
      if (ZSTD_isError(r)) {
        error_ = "zstd records block is malformed";
        return false;
      }
      frame_done_ = (r == 0);
      if (out.pos == 0 && (frame_done_ ? in_.pos == in_.size : in_.pos == in_before)) {
        if (!frame_done_) error_ = "zstd records block is truncated";
        return false;
      }
    }
    produced_ += out.pos;
    if (produced_ > bound_) {
      error_ = "zstd records block decompresses beyond the limit";
      return false;
    }
    rend_ = out.pos;
    return true;
  }

  ZSTD_DCtx* dctx_;
  ZSTD_inBuffer in_;
  std::span<std::byte> window_;
  uint64_t bound_;
  std::size_t rpos_ = 0;
  std::size_t rend_ = 0;
  uint64_t consumed_ = 0;
  uint64_t produced_ = 0;
  bool frame_done_ = false;
  const char* error_ = nullptr;
};

template <typename Source>
Status walk_all(Source& src, int32_t count) {
  RecordView view;
  for (int32_t i = 0; i < count; ++i) {
    if (const char* err = parse_record(src, i, &view)) {
      if constexpr (std::is_same_v<Source, ZstdSource>) {
        if (src.error()) return corrupt_record(i, src.error());
      }
      return corrupt_record(i, err);
    }
  }
  if (!src.at_end()) {
    if constexpr (std::is_same_v<Source, ZstdSource>) {
      if (src.error()) return corrupt(src.error());
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
    case Compression::kZstd: {
      if (static_cast<uint64_t>(h.record_count) * kMinRecordBytes > kMaxRecordsBytes) {
        return corrupt("record count exceeds the decompressed records limit");
      }
      ZSTD_DCtx* dctx = zstd::thread_dctx();
      if (!dctx) return Status(ErrorCode::kResourceExhausted, "cannot create a zstd context");
      std::array<std::byte, 16 * 1024> window;  // deliberately uninitialized
      ZstdSource src(dctx, block, window, kMaxRecordsBytes);
      return walk_all(src, h.record_count);
    }
    default:
      return corrupt("unsupported compression codec (only none and zstd)");
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
  ZSTD_DCtx* dctx = zstd::thread_dctx();
  if (!dctx) return Status(ErrorCode::kResourceExhausted, "cannot create a zstd context");
  std::span<const std::byte> block = records_block(batch);
  ZSTD_inBuffer in{block.data(), block.size(), 0};
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  for (;;) {
    const std::size_t in_before = in.pos, out_before = o.pos;
    std::size_t r = ZSTD_decompressStream(dctx, &o, &in);
    if (ZSTD_isError(r)) return corrupt("zstd records block is malformed");
    if (r == 0 && in.pos == in.size) break;
    if (o.pos == o.size) {
      // `out` is full; a one-byte probe tells whether more output follows.
      std::byte extra;
      ZSTD_outBuffer probe{&extra, 1, 0};
      r = ZSTD_decompressStream(dctx, &probe, &in);
      if (ZSTD_isError(r)) return corrupt("zstd records block is malformed");
      if (probe.pos > 0) {
        return Status(ErrorCode::kBatchTooLarge, "decompressed records exceed the buffer");
      }
      if (r == 0 && in.pos == in.size) break;
    }
    if (in.pos == in_before && o.pos == out_before) {
      return corrupt("zstd records block is truncated");
    }
  }
  return std::span<const std::byte>(out.data(), o.pos);
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
