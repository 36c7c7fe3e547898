// Helpers shared by the storage tests: reading a whole log back as separate
// stored batches, and a scratch directory on the real disk.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "spillway/common/endian.h"
#include "spillway/common/ids.h"
#include "spillway/common/record_batch.h"
#include "spillway/storage/partition_log.h"
#include "test_batches.h"

namespace spillway {

// gtest prints offsets and ids as their numbers (found by ADL).
inline void PrintTo(Offset offset, std::ostream* os) {
  *os << offset.value();
}
template <typename T, typename Tag>
void PrintTo(NamedInt<T, Tag> id, std::ostream* os) {
  *os << +id.value();
}

}  // namespace spillway

namespace spillway::storage::testing {

// A log of small segments (4 KiB) with a dense index, so that tests roll
// and index after a few batches.
inline LogConfig small_log_config(FlushPolicy policy = FlushPolicy::kInterval) {
  LogConfig c;
  c.segment_bytes = 4096;
  c.index_interval_bytes = 256;
  c.flush_policy = policy;
  return c;
}

// Every batch in [from, high watermark), each as its stored bytes, read with
// `max_bytes` per read. Fails the test on a read error or a non-dense log.
inline std::vector<Bytes> read_batches(PartitionLog& log, int64_t from, uint64_t max_bytes) {
  std::vector<Bytes> out;
  Offset offset(from);
  int64_t expected_base = -1;
  while (offset < log.high_watermark()) {
    Result<FileSlice> slice = log.read(offset, max_bytes);
    EXPECT_TRUE(slice.ok()) << slice.status().to_string();
    if (!slice.ok() || slice->empty()) break;
    Bytes bytes(slice->length);
    Status st = read_slice(*slice, bytes);
    EXPECT_TRUE(st.ok()) << st.to_string();
    std::size_t pos = 0;
    while (pos < bytes.size()) {
      Result<batch::BatchHeader> h = batch::parse_header(std::span(bytes).subspan(pos));
      EXPECT_TRUE(h.ok());
      if (!h.ok()) return out;
      if (expected_base >= 0) {
        EXPECT_EQ(h->base_offset, expected_base) << "offsets are not dense";
      }
      expected_base = h->last_offset() + 1;
      out.emplace_back(bytes.begin() + pos, bytes.begin() + pos + h->total_size());
      EXPECT_TRUE(batch::validate(out.back(), batch::kMaxBatchBytes).ok());
      pos += h->total_size();
    }
    EXPECT_EQ(pos, bytes.size());
    EXPECT_GT(slice->next_offset, offset);
    offset = slice->next_offset;
  }
  return out;
}

// Equality of two batch lists that prints a short summary, not every byte.
inline ::testing::AssertionResult SameBatches(const std::vector<Bytes>& got,
                                              const std::vector<Bytes>& want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << "got " << got.size() << " batches, want " << want.size();
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      return ::testing::AssertionFailure() << "batch " << i << " differs (" << got[i].size()
                                           << " vs " << want[i].size() << " bytes)";
    }
  }
  return ::testing::AssertionSuccess();
}

// A fresh directory under the system temp dir, removed with its contents.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "spillway-storage-XXXXXX");
    char* made = ::mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr);
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace spillway::storage::testing
