// libFuzzer target for validation of compressed batches: the input is a
// codec selector, a record count and an uncompressed records block, which
// the target compresses the way Kafka clients do (gzip, raw snappy,
// snappy-java framing, lz4 frame, zstd; compression_testing.h). Mutating the
// plain records, not the compressed bytes, lets the fuzzer reach the record
// grammar through every decompressor. Checks, besides "no crash, no
// sanitizer report":
//   - the compressed batch is valid exactly when the plain one is;
//   - a valid one decompresses to the plain records, byte for byte;
//   - the compressed block without its last byte is never valid.
// Input: [codec % 5][count: u16 BE][records block...]
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../common/compression_testing.h"
#include "spillway/common/record_batch.h"

namespace {

using namespace spillway;
using namespace spillway::batch;
using spillway::testing::Bytes;

constexpr std::size_t kMaxBatch = 1 << 20;

void check(bool ok) {
  if (!ok) std::abort();  // an invariant broke: libFuzzer reports the input
}

struct Compressed {
  Bytes block;
  int16_t attributes;
};

Compressed compress(uint8_t selector, const Bytes& plain) {
  namespace t = spillway::testing;
  switch (selector % 5) {
    case 0:
      return {t::gzip_compress(plain, 1), 1};
    case 1:
      return {t::snappy_raw_compress(plain), 2};
    case 2:
      // Small chunks, so that records straddle chunk boundaries.
      return {t::snappy_java_compress(plain, 1 + selector / 5 * 8), 2};
    case 3:
      return {t::lz4_compress(plain), 3};
    default:
      return {t::zstd_compress(plain), 4};
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 3 || size > kMaxBatch / 2) return 0;
  const int32_t count = (data[1] << 8) | data[2];
  const Bytes plain(reinterpret_cast<const std::byte*>(data) + 3,
                    reinterpret_cast<const std::byte*>(data) + size);
  const Compressed c = compress(data[0], plain);

  const bool plain_ok =
      validate(spillway::testing::assemble_batch(plain, count, 0), kMaxBatch).ok();
  const Bytes batch = spillway::testing::assemble_batch(c.block, count, c.attributes);
  const bool compressed_ok = validate(batch, kMaxBatch).ok();
  check(plain_ok == compressed_ok);
  if (compressed_ok) {
    static std::vector<std::byte> out(kMaxBatch);
    auto block = decompress_records(batch, out);
    check(block.ok() && block->size() == plain.size() &&
          (plain.empty() || std::memcmp(block->data(), plain.data(), plain.size()) == 0));
  }
  if (!c.block.empty()) {
    const Bytes cut(c.block.begin(), c.block.end() - 1);
    check(!validate(spillway::testing::assemble_batch(cut, count, c.attributes), kMaxBatch).ok());
  }
  return 0;
}
