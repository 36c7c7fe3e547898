// A deliberately simple, independent RecordBatch v2 encoder for tests: it
// builds batches in std::vector (allocation is fine here) so tests can check
// the real builder against it and craft malformed batches byte by byte.
#pragma once

#include <zstd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"
#include "spillway/common/record_batch.h"
#include "spillway/common/varint.h"

namespace spillway::testing {

using Bytes = std::vector<std::byte>;

inline Bytes bytes_of(std::string_view s) {
  Bytes b(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) b[i] = static_cast<std::byte>(s[i]);
  return b;
}

struct TestHeader {
  std::string key;
  std::optional<std::string> value;
};

struct TestRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp_delta = 0;
  std::vector<TestHeader> headers;
};

inline void put_varint(Bytes& out, int64_t v) {
  std::byte tmp[10];
  std::byte* end = varint::put_varlong(tmp, v);
  out.insert(out.end(), tmp, end);
}

inline void put_nullable(Bytes& out, const std::optional<std::string>& s) {
  if (!s) {
    put_varint(out, -1);
    return;
  }
  put_varint(out, static_cast<int64_t>(s->size()));
  for (char c : *s) out.push_back(static_cast<std::byte>(c));
}

inline Bytes encode_record(const TestRecord& r, int32_t offset_delta) {
  Bytes body;
  body.push_back(std::byte{0});
  put_varint(body, r.timestamp_delta);
  put_varint(body, offset_delta);
  put_nullable(body, r.key);
  put_nullable(body, r.value);
  put_varint(body, static_cast<int64_t>(r.headers.size()));
  for (const auto& h : r.headers) {
    put_nullable(body, h.key);
    put_nullable(body, h.value);
  }
  Bytes out;
  put_varint(out, static_cast<int64_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

inline Bytes zstd_compress(const Bytes& in) {
  Bytes out(ZSTD_compressBound(in.size()));
  std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  out.resize(n);
  return out;
}

// Assembles a batch around an already encoded records block, with a
// correct CRC unless the caller breaks it afterwards.
inline Bytes assemble_batch(const Bytes& block, int32_t record_count, int16_t attributes,
                            int64_t base_offset = 0, int64_t base_timestamp = 1000) {
  Bytes b(batch::kHeaderSize + block.size());
  store_be<int64_t>(&b[batch::kBaseOffsetPos], base_offset);
  store_be<int32_t>(&b[batch::kBatchLengthPos],
                    static_cast<int32_t>(batch::kHeaderSize - 12 + block.size()));
  store_be<int32_t>(&b[batch::kLeaderEpochPos], -1);
  store_be<int8_t>(&b[batch::kMagicPos], 2);
  store_be<int16_t>(&b[batch::kAttributesPos], attributes);
  store_be<int32_t>(&b[batch::kLastOffsetDeltaPos], record_count > 0 ? record_count - 1 : 0);
  store_be<int64_t>(&b[batch::kBaseTimestampPos], base_timestamp);
  store_be<int64_t>(&b[batch::kMaxTimestampPos], base_timestamp);
  store_be<int64_t>(&b[batch::kProducerIdPos], -1);
  store_be<int16_t>(&b[batch::kProducerEpochPos], -1);
  store_be<int32_t>(&b[batch::kBaseSequencePos], -1);
  store_be<int32_t>(&b[batch::kRecordCountPos], record_count);
  std::copy(block.begin(), block.end(), b.begin() + batch::kHeaderSize);
  store_be<uint32_t>(&b[batch::kCrcPos], crc32c(std::span(b).subspan(batch::kAttributesPos)));
  return b;
}

// Recomputes the CRC after a test edited bytes covered by it.
inline void fix_crc(Bytes& b) {
  store_be<uint32_t>(&b[batch::kCrcPos], crc32c(std::span(b).subspan(batch::kAttributesPos)));
}

inline Bytes encode_batch(const std::vector<TestRecord>& records, bool zstd = false) {
  Bytes block;
  for (std::size_t i = 0; i < records.size(); ++i) {
    Bytes r = encode_record(records[i], static_cast<int32_t>(i));
    block.insert(block.end(), r.begin(), r.end());
  }
  if (zstd) block = zstd_compress(block);
  return assemble_batch(block, static_cast<int32_t>(records.size()),
                        zstd ? static_cast<int16_t>(batch::Compression::kZstd) : 0);
}

inline std::string str(std::span<const std::byte> s) {
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}

}  // namespace spillway::testing
