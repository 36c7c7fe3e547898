// Writes the seed corpora of fuzz_record_batch (tests/fuzz/corpus/
// record_batch: valid batches built by BatchBuilder, uncompressed and with
// each codec, plus a few malformed ones) and of fuzz_compressed_batch
// (tests/fuzz/corpus/compressed_batch: codec selector, count, plain records).
// Build and run by hand when the format grows:
//   cmake --build build/<dir> --target fuzz_make_corpus
//   build/<dir>/tests/fuzz/fuzz_make_corpus tests/fuzz/corpus/record_batch \
//       tests/fuzz/corpus/compressed_batch
#include <cstdio>
#include <string>
#include <vector>

#include "../common/compression_testing.h"
#include "spillway/common/batch_builder.h"

using namespace spillway;
using namespace spillway::batch;

namespace {

std::span<const std::byte> sv(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

void save(const std::string& dir, const std::string& name, const std::vector<std::byte>& b) {
  std::FILE* f = std::fopen((dir + "/" + name).c_str(), "wb");
  if (!f) return;
  std::fwrite(b.data(), 1, b.size(), f);
  std::fclose(f);
}

std::vector<std::byte> build(Compression c, int records, std::size_t value_size, bool headers) {
  std::byte scratch[1024];
  WriteBuffer wb(scratch);
  BatchBuilder b;
  BuilderOptions o;
  o.compression = c;
  if (!b.start(wb, o).ok()) return {};
  std::string key = "key", value(value_size, 'v'), hk = "trace-id", hv = "abc123";
  const RecordHeaderInput hs[] = {{sv(hk), sv(hv), false}, {sv(hk), {}, true}};
  for (int i = 0; i < records; ++i) {
    RecordInput in;
    in.timestamp = 1700000000000 + i;
    in.key = sv(key);
    in.key_is_null = i % 3 == 2;
    in.value = sv(value);
    if (headers) in.headers = hs;
    if (!b.append(in).ok()) return {};
  }
  if (!b.finish().ok()) return {};
  std::vector<std::byte> out(wb.bytes_written());
  wb.copy_to(out);
  return out;
}

// The batch's records block recompressed with another codec (attributes
// `codec`), the way a Kafka client would have sent it.
std::vector<std::byte> recompress(const std::vector<std::byte>& plain_batch, int16_t codec,
                                  testing::Bytes (*compress)(const testing::Bytes&)) {
  auto h = parse_header(plain_batch);
  const testing::Bytes block(plain_batch.begin() + kHeaderSize, plain_batch.end());
  return testing::assemble_batch(compress(block), h->record_count, codec);
}

testing::Bytes gzip(const testing::Bytes& b) {
  return testing::gzip_compress(b);
}
testing::Bytes snappy_java(const testing::Bytes& b) {
  return testing::snappy_java_compress(b);
}
testing::Bytes lz4(const testing::Bytes& b) {
  return testing::lz4_compress(b);
}

// A fuzz_compressed_batch input: selector, count, the plain records block.
std::vector<std::byte> compressed_seed(uint8_t selector, const std::vector<std::byte>& batch) {
  auto h = parse_header(batch);
  std::vector<std::byte> out{std::byte{selector}, std::byte(h->record_count >> 8),
                             std::byte(h->record_count & 0xff)};
  out.insert(out.end(), batch.begin() + kHeaderSize, batch.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  save(dir, "empty_none", build(Compression::kNone, 0, 0, false));
  save(dir, "one_none", build(Compression::kNone, 1, 10, false));
  save(dir, "three_headers_none", build(Compression::kNone, 3, 20, true));
  save(dir, "many_none", build(Compression::kNone, 40, 5, true));
  save(dir, "empty_zstd", build(Compression::kZstd, 0, 0, false));
  save(dir, "one_zstd", build(Compression::kZstd, 1, 10, false));
  save(dir, "headers_zstd", build(Compression::kZstd, 5, 200, true));
  save(dir, "large_value_zstd", build(Compression::kZstd, 2, 20000, false));
  auto truncated = build(Compression::kNone, 3, 20, true);
  truncated.resize(truncated.size() - 5);
  save(dir, "truncated_none", truncated);
  auto bad_crc = build(Compression::kNone, 2, 8, false);
  bad_crc[30] ^= std::byte{0xFF};
  save(dir, "bad_crc_none", bad_crc);

  const auto headers = build(Compression::kNone, 5, 200, true);
  save(dir, "headers_gzip", recompress(headers, 1, gzip));
  save(dir, "headers_snappy_raw", recompress(headers, 2, testing::snappy_raw_compress));
  save(dir, "headers_snappy_java", recompress(headers, 2, snappy_java));
  save(dir, "headers_lz4", recompress(headers, 3, lz4));
  const auto large = build(Compression::kNone, 2, 20000, false);
  save(dir, "large_value_gzip", recompress(large, 1, gzip));
  save(dir, "large_value_snappy_java", recompress(large, 2, snappy_java));
  save(dir, "large_value_lz4", recompress(large, 3, lz4));

  if (argc > 2) {
    const std::string cdir = argv[2];
    const char* names[] = {"gzip", "snappy_raw", "snappy_java", "lz4", "zstd"};
    for (uint8_t sel = 0; sel < 5; ++sel) {
      save(cdir, std::string("one_") + names[sel],
           compressed_seed(sel, build(Compression::kNone, 1, 10, false)));
      save(cdir, std::string("headers_") + names[sel], compressed_seed(sel, headers));
      save(cdir, std::string("many_") + names[sel],
           compressed_seed(static_cast<uint8_t>(sel + 5), build(Compression::kNone, 40, 5, true)));
    }
  }
  return 0;
}
