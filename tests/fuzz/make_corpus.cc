// Writes the seed corpus of fuzz_record_batch (tests/fuzz/corpus/
// record_batch): valid batches built by BatchBuilder, with and without zstd,
// plus a few malformed ones. Build and run by hand when the format grows:
//   cmake --build build/<dir> --target fuzz_make_corpus
//   build/<dir>/tests/fuzz/fuzz_make_corpus tests/fuzz/corpus/record_batch
#include <cstdio>
#include <string>
#include <vector>

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
  return 0;
}
