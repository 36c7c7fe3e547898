// Builds small, valid RecordBatch v2 batches for storage tests, byte by byte,
// independent of the production builder. Allocation is fine here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"
#include "spillway/common/record_batch.h"
#include "spillway/common/varint.h"

namespace spillway::storage::testing {

using Bytes = std::vector<std::byte>;

// A deterministic byte stream (splitmix64) so tests and crash children can
// regenerate or vary payloads from a seed.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// `record_count` records (null key, `value_size`-byte value, no headers) with
// values derived from `seed`; base offset 0, leader epoch 0, CRC set.
inline Bytes make_batch(int32_t record_count, std::size_t value_size, uint64_t seed,
                        int64_t timestamp = 1'700'000'000'000) {
  Bytes records;
  for (int32_t i = 0; i < record_count; ++i) {
    Bytes body;
    std::byte tmp[10];
    body.push_back(std::byte{0});                                                // attributes
    body.insert(body.end(), tmp, varint::put_varlong(tmp, 0));                   // ts delta
    body.insert(body.end(), tmp, varint::put_varint(tmp, i));                    // offset delta
    body.insert(body.end(), tmp, varint::put_varint(tmp, -1));                   // null key
    body.insert(body.end(), tmp, varint::put_varint(tmp, int32_t(value_size)));  // value len
    for (std::size_t j = 0; j < value_size; ++j) {
      body.push_back(std::byte(mix64(seed * 1000003 + uint64_t(i) * 7919 + j) & 0xff));
    }
    body.insert(body.end(), tmp, varint::put_varint(tmp, 0));  // header count
    records.insert(records.end(), tmp, varint::put_varint(tmp, int32_t(body.size())));
    records.insert(records.end(), body.begin(), body.end());
  }
  Bytes b(batch::kHeaderSize + records.size());
  std::byte* p = b.data();
  store_be<int64_t>(p + batch::kBaseOffsetPos, 0);
  store_be<int32_t>(p + batch::kBatchLengthPos, int32_t(b.size() - batch::kLengthPrefixSize));
  store_be<int32_t>(p + batch::kLeaderEpochPos, 0);
  p[batch::kMagicPos] = std::byte{2};
  store_be<int16_t>(p + batch::kAttributesPos, 0);
  store_be<int32_t>(p + batch::kLastOffsetDeltaPos, record_count - 1);
  store_be<int64_t>(p + batch::kBaseTimestampPos, timestamp);
  store_be<int64_t>(p + batch::kMaxTimestampPos, timestamp);
  store_be<int64_t>(p + batch::kProducerIdPos, -1);
  store_be<int16_t>(p + batch::kProducerEpochPos, -1);
  store_be<int32_t>(p + batch::kBaseSequencePos, -1);
  store_be<int32_t>(p + batch::kRecordCountPos, record_count);
  std::copy(records.begin(), records.end(), b.begin() + batch::kHeaderSize);
  const uint32_t crc = crc32c(std::span<const std::byte>(b).subspan(batch::kAttributesPos));
  store_be<uint32_t>(p + batch::kCrcPos, crc);
  return b;
}

}  // namespace spillway::storage::testing
