// The v2 record grammar, written once and run over two byte sources: the
// batch in memory (RecordReader, uncompressed validation) and a bounded zstd
// decompression window (compressed validation). Private to spillway_common.
//
// A Source provides consumed(), byte(limit, &u8), varint(limit, &i32),
// varlong(limit, &i64) and take(n, &span); reads never pass `limit` (an
// absolute consumed() position) and fail instead. The grammar checks every
// length against the bytes its record declares before taking them.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "spillway/common/record_batch.h"
#include "spillway/common/varint.h"

namespace spillway::batch {

// length, attributes, timestamp delta, offset delta, key length, value
// length and header count each take at least one byte.
constexpr uint64_t kMinRecordBytes = 7;

// Decodes one record header (key, value) that must end by `limit`.
// Returns nullptr on success, else a static description of the fault.
template <typename Source>
const char* parse_header_entry(Source& src, uint64_t limit, RecordHeaderView* out) {
  int32_t key_len;
  if (!src.varint(limit, &key_len)) return "header key length is malformed or truncated";
  if (key_len < 0) return "header key length is negative";
  if (src.consumed() + static_cast<uint64_t>(key_len) > limit) {
    return "header key runs past its record";
  }
  if (!src.take(static_cast<std::size_t>(key_len), &out->key)) return "header key is truncated";
  int32_t value_len;
  if (!src.varint(limit, &value_len)) return "header value length is malformed or truncated";
  if (value_len < -1) return "header value length is below -1";
  out->value_is_null = value_len == -1;
  out->value = {};
  if (value_len > 0) {
    if (src.consumed() + static_cast<uint64_t>(value_len) > limit) {
      return "header value runs past its record";
    }
    if (!src.take(static_cast<std::size_t>(value_len), &out->value)) {
      return "header value is truncated";
    }
  }
  return nullptr;
}

// Decodes record number `index` (its offset delta must equal it).
// Returns nullptr on success, else a static description of the fault.
template <typename Source>
const char* parse_record(Source& src, int32_t index, RecordView* out) {
  constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();
  int32_t length;
  if (!src.varint(kNoLimit, &length)) return "record length is malformed or truncated";
  if (length < static_cast<int32_t>(kMinRecordBytes - 1)) return "record length is too small";
  const uint64_t end = src.consumed() + static_cast<uint64_t>(length);

  uint8_t attributes;
  if (!src.byte(end, &attributes)) return "record attributes are truncated";
  out->attributes = static_cast<int8_t>(attributes);
  if (!src.varlong(end, &out->timestamp_delta)) return "timestamp delta is malformed";
  if (!src.varint(end, &out->offset_delta)) return "offset delta is malformed";
  if (out->offset_delta != index) return "offset delta out of sequence";

  int32_t key_len;
  if (!src.varint(end, &key_len)) return "key length is malformed";
  if (key_len < -1) return "key length is below -1";
  out->key_is_null = key_len == -1;
  out->key = {};
  if (key_len > 0) {
    if (src.consumed() + static_cast<uint64_t>(key_len) > end) return "key runs past its record";
    if (!src.take(static_cast<std::size_t>(key_len), &out->key)) return "key is truncated";
  }
  int32_t value_len;
  if (!src.varint(end, &value_len)) return "value length is malformed";
  if (value_len < -1) return "value length is below -1";
  out->value_is_null = value_len == -1;
  out->value = {};
  if (value_len > 0) {
    if (src.consumed() + static_cast<uint64_t>(value_len) > end) {
      return "value runs past its record";
    }
    if (!src.take(static_cast<std::size_t>(value_len), &out->value)) return "value is truncated";
  }
  if (!src.varint(end, &out->header_count)) return "header count is malformed";
  if (out->header_count < 0) return "header count is negative";
  // Each header needs at least its two length bytes.
  if (static_cast<uint64_t>(out->header_count) * 2 > end - src.consumed()) {
    return "header count exceeds what the record can hold";
  }
  out->headers = {};
  const std::byte* headers_begin = nullptr;
  if constexpr (requires { src.position(); }) headers_begin = src.position();
  RecordHeaderView header;
  for (int32_t i = 0; i < out->header_count; ++i) {
    if (const char* err = parse_header_entry(src, end, &header)) return err;
  }
  if constexpr (requires { src.position(); }) {
    out->headers = {headers_begin, static_cast<std::size_t>(src.position() - headers_begin)};
  }
  if (src.consumed() != end) return "record length does not match its fields";
  return nullptr;
}

}  // namespace spillway::batch
