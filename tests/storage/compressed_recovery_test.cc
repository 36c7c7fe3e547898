// Batches that Kafka clients compressed (gzip, snappy raw and snappy-java
// framed, lz4, zstd) are appended and served verbatim, and the recovery scan
// after a crash, which validates every batch of the active segment
// (batch::validate), keeps them byte for byte; a torn compressed batch at the
// tail is cut like any other.
#include <gtest/gtest.h>

#include <map>

#include "../common/compression_testing.h"
#include "log_testing.h"
#include "memory_file_system.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

using testing::MemoryFileSystem;
using testing::read_batches;
using Bytes = std::vector<std::byte>;
using Files = std::map<std::string, Bytes>;
namespace c = spillway::testing;

constexpr char kDir[] = "/data/compressed-0";

// One segment holds them all, so recovery scans every batch.
LogConfig config() {
  LogConfig cfg;
  cfg.segment_bytes = 16 << 20;
  cfg.index_interval_bytes = 4096;
  return cfg;
}

// `n` records' block (values long enough to span snappy-java chunks and lz4
// blocks when n is large), compressed by `codec`.
Bytes client_batch(int codec_index, int n) {
  Bytes block;
  for (int i = 0; i < n; ++i) {
    c::TestRecord r{"k" + std::to_string(i), std::string(300 + i, char('a' + i % 26)), i, {}};
    Bytes e = c::encode_record(r, i);
    block.insert(block.end(), e.begin(), e.end());
  }
  switch (codec_index) {
    case 0:
      return c::assemble_batch(c::gzip_compress(block), n, 1);
    case 1:
      return c::assemble_batch(c::snappy_raw_compress(block), n, 2);
    case 2:
      return c::assemble_batch(c::snappy_java_compress(block), n, 2);
    case 3:
      return c::assemble_batch(c::lz4_compress(block), n, 3);
    default:
      return c::assemble_batch(c::zstd_compress(block), n, 4);
  }
}

// Appends a batch of every codec twice (small, then spanning chunks), and
// returns the files as a crash would leave them (the log never closed) and
// the stored batches.
std::pair<Files, std::vector<Bytes>> crashed_log() {
  MemoryFileSystem fs;
  auto log = PartitionLog::open(fs, kDir, config());
  EXPECT_TRUE(log.ok());
  std::vector<Bytes> stored;
  for (int n : {3, 400}) {
    for (int codec = 0; codec < 5; ++codec) {
      Bytes b = client_batch(codec, n);
      EXPECT_TRUE((*log)->append(b).ok());
      stored.push_back(b);
    }
  }
  Files files;
  auto names = fs.list_dir(kDir);
  EXPECT_TRUE(names.ok());
  for (const auto& name : *names) {
    files[std::string(kDir) + "/" + name] = fs.contents(std::string(kDir) + "/" + name);
  }
  return {files, stored};
}

std::unique_ptr<PartitionLog> reopen(MemoryFileSystem& fs, const Files& files) {
  for (const auto& [path, bytes] : files) fs.set_contents(path, bytes);
  auto log = PartitionLog::open(fs, kDir, config());
  EXPECT_TRUE(log.ok()) << log.status().to_string();
  return log.ok() ? std::move(*log) : nullptr;
}

TEST(CompressedRecovery, EveryCodecIsKeptVerbatim) {
  auto [files, stored] = crashed_log();
  MemoryFileSystem fs;
  auto log = reopen(fs, files);
  ASSERT_TRUE(log);
  EXPECT_TRUE(testing::SameBatches(read_batches(*log, 0, 1 << 20), stored));
}

TEST(CompressedRecovery, ATornCompressedTailIsCut) {
  auto [files, stored] = crashed_log();
  auto active = std::find_if(files.begin(), files.end(),
                             [](const auto& f) { return f.first.ends_with(".log"); });
  ASSERT_NE(active, files.end());
  // The last batch (zstd, 400 records) loses its final bytes; then the one
  // before it (lz4) is torn instead.
  for (std::size_t drop : {std::size_t{1}, stored.back().size() + 5}) {
    Files torn = files;
    Bytes& log_bytes = torn[active->first];
    log_bytes.resize(log_bytes.size() - drop);
    MemoryFileSystem fs;
    auto log = reopen(fs, torn);
    ASSERT_TRUE(log);
    const std::size_t keep = drop == 1 ? stored.size() - 1 : stored.size() - 2;
    EXPECT_TRUE(testing::SameBatches(
        read_batches(*log, 0, 1 << 20),
        std::vector<Bytes>(stored.begin(), stored.begin() + static_cast<std::ptrdiff_t>(keep))))
        << "dropped " << drop;
  }
}

}  // namespace
}  // namespace spillway::storage
