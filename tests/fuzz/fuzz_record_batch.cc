// libFuzzer target for the RecordBatch v2 parser (record_batch.h): header
// parsing, full validation (and the stricter one for produced batches), the
// record and header readers, and decompression (gzip, snappy, lz4, zstd), on
// arbitrary bytes (fuzz_compressed_batch.cc reaches the records inside valid
// compressed blocks).
// Besides "no crash, no sanitizer report", it checks that a batch validate()
// accepts reads back completely, and that validate_produced() accepts
// exactly the valid batches that hold records.
//
// Each input is tried twice: as given, and with its batch_length and CRC
// fixed up, so that the fuzzer gets past the CRC to the record grammar.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"
#include "spillway/common/record_batch.h"

namespace {

using namespace spillway;
using namespace spillway::batch;

constexpr std::size_t kMaxBatch = 1 << 20;

void check(bool ok) {
  if (!ok) std::abort();  // an invariant broke: libFuzzer reports the input
}

// Walks every record and header; returns how many records came out.
int32_t read_all(std::span<const std::byte> block, int32_t count, bool* ok) {
  RecordReader reader(block, count);
  RecordView r;
  int32_t n = 0;
  while (reader.next(&r)) {
    check(r.key.size() <= block.size() && r.value.size() <= block.size());
    HeaderReader hr(r);
    RecordHeaderView h;
    int32_t headers = 0;
    while (hr.next(&h)) ++headers;
    if (hr.status().ok()) check(headers == r.header_count);
    ++n;
  }
  *ok = reader.status().ok();
  return n;
}

void exercise(std::span<const std::byte> bytes) {
  auto header = parse_header(bytes);
  Status valid = validate(bytes, kMaxBatch);
  // What a producer may send: exactly the valid batches with records.
  Status produced = validate_produced(bytes, kMaxBatch);
  if (!header.ok()) {
    check(!valid.ok() && !produced.ok());
    return;
  }
  check(produced.ok() == (valid.ok() && header->record_count > 0));
  bool ok = false;
  if (header->compression() == Compression::kNone) {
    const int32_t n = read_all(records_block(bytes), header->record_count, &ok);
    // A valid batch must read back exactly.
    if (valid.ok()) check(ok && n == header->record_count);
  } else if (header->compression() <= Compression::kZstd) {
    static std::vector<std::byte> out(4 * kMaxBatch);
    auto block = decompress_records(bytes, out);
    if (block.ok()) {
      const int32_t n = read_all(*block, header->record_count, &ok);
      if (valid.ok()) check(ok && n == header->record_count);
    }
  } else {
    check(!valid.ok());  // codecs 5-7
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::span<const std::byte> raw(reinterpret_cast<const std::byte*>(data), size);
  exercise(raw);
  if (size >= kHeaderSize && size <= kMaxBatch) {
    std::vector<std::byte> fixed(raw.begin(), raw.end());
    store_be<int32_t>(fixed.data() + kBatchLengthPos,
                      static_cast<int32_t>(size - kLengthPrefixSize));
    fixed[kMagicPos] = std::byte{2};
    store_be<uint32_t>(fixed.data() + kCrcPos,
                       crc32c(std::span<const std::byte>(fixed).subspan(kAttributesPos)));
    exercise(fixed);
  }
  return 0;
}
