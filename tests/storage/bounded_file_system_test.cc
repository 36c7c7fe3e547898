// BoundedFileSystem: at most max_open of its files hold a descriptor, an
// evicted file reopens by path with its bytes intact, a pinned file survives
// the removal of its name, and partition logs work unchanged on top of it.
#include "spillway/storage/bounded_file_system.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "log_testing.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

using testing::ScratchDir;

// Descriptors this process holds on files below `dir` (from /proc/self/fd).
std::size_t descriptors_below(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string().rfind(dir + "/", 0) == 0) ++n;
  }
  return n;
}

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

std::string read_all(File& file) {
  Result<uint64_t> size = file.size();
  EXPECT_TRUE(size.ok()) << size.status().to_string();
  std::string out(size.ok() ? *size : 0, '\0');
  Status st = read_exact(file, std::as_writable_bytes(std::span(out.data(), out.size())), 0);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return out;
}

TEST(BoundedFileSystem, NeverHoldsMoreThanItsLimitAndEvictedFilesKeepTheirBytes) {
  ScratchDir scratch;
  BoundedFileSystem fs(posix_file_system(), 3);
  std::vector<std::unique_ptr<File>> files;
  for (int i = 0; i < 10; ++i) {
    Result<std::unique_ptr<File>> f =
        fs.open(scratch.path() + "/f" + std::to_string(i), OpenMode::kCreate);
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    ASSERT_TRUE(write_all(**f, bytes_of("file " + std::to_string(i)), 0).ok());
    files.push_back(std::move(*f));
    EXPECT_LE(descriptors_below(scratch.path()), 3u);
    EXPECT_LE(fs.open_files(), 3u);
  }
  // Every one again, twice round: each use of an evicted file reopens it.
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 10; ++i) {
      const std::string text = "file " + std::to_string(i);
      ASSERT_TRUE(write_all(*files[i], bytes_of("!"), text.size()).ok());
      EXPECT_EQ(read_all(*files[i]), text + "!");
      EXPECT_LE(descriptors_below(scratch.path()), 3u);
    }
  }
  EXPECT_GE(fs.reopens(), 20u);
  files.clear();
  EXPECT_EQ(fs.open_files(), 0u);
  EXPECT_EQ(descriptors_below(scratch.path()), 0u);
}

TEST(BoundedFileSystem, TheMostRecentlyUsedFilesStayOpen) {
  ScratchDir scratch;
  BoundedFileSystem fs(posix_file_system(), 2);
  auto a = fs.open(scratch.path() + "/a", OpenMode::kCreate);
  auto b = fs.open(scratch.path() + "/b", OpenMode::kCreate);
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(write_all(**a, bytes_of("a"), static_cast<uint64_t>(i)).ok());
    ASSERT_TRUE(write_all(**b, bytes_of("b"), static_cast<uint64_t>(i)).ok());
  }
  EXPECT_EQ(fs.reopens(), 0u);
  // A third file evicts the least recently used one (a), not b.
  auto c = fs.open(scratch.path() + "/c", OpenMode::kCreate);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(write_all(**b, bytes_of("b"), 100).ok());
  EXPECT_EQ(fs.reopens(), 0u);
  ASSERT_TRUE(write_all(**a, bytes_of("a"), 100).ok());
  EXPECT_EQ(fs.reopens(), 1u);
}

TEST(BoundedFileSystem, APinnedFileStaysReadableAfterItsNameIsRemoved) {
  ScratchDir scratch;
  BoundedFileSystem fs(posix_file_system(), 2);
  const std::string path = scratch.path() + "/segment";
  auto kept = fs.open(path, OpenMode::kCreate);
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(write_all(**kept, bytes_of("still here"), 0).ok());
  // Evicted first, so pinning has to reopen it.
  std::vector<std::unique_ptr<File>> others;
  for (int i = 0; i < 3; ++i) {
    auto f = fs.open(scratch.path() + "/o" + std::to_string(i), OpenMode::kCreate);
    ASSERT_TRUE(f.ok());
    others.push_back(std::move(*f));
  }
  ASSERT_TRUE((*kept)->hold_open().ok());
  ASSERT_TRUE(fs.remove(path).ok());
  // Many more files come and go; the pinned one is never closed.
  for (int i = 0; i < 5; ++i) {
    auto f = fs.open(scratch.path() + "/n" + std::to_string(i), OpenMode::kCreate);
    ASSERT_TRUE(f.ok());
  }
  EXPECT_EQ(read_all(**kept), "still here");
}

TEST(BoundedFileSystem, AnEvictedFileWhoseNameIsGoneFailsWithItsPath) {
  ScratchDir scratch;
  BoundedFileSystem fs(posix_file_system(), 1);
  const std::string path = scratch.path() + "/gone";
  auto gone = fs.open(path, OpenMode::kCreate);
  ASSERT_TRUE(gone.ok());
  auto other = fs.open(scratch.path() + "/other", OpenMode::kCreate);  // evicts `gone`
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(fs.remove(path).ok());
  Result<uint64_t> size = (*gone)->size();
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.status().message().find(path), std::string_view::npos)
      << size.status().to_string();
}

TEST(BoundedFileSystem, OpeningAMissingFileWithoutCreateFailsAndHoldsNothing) {
  ScratchDir scratch;
  BoundedFileSystem fs(posix_file_system(), 4);
  auto missing = fs.open(scratch.path() + "/none", OpenMode::kExisting);
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(fs.open_files(), 0u);
}

TEST(BoundedFileSystem, ThreadsSharingFewDescriptorsReadBackWhatTheyWrote) {
  ScratchDir scratch;
  BoundedFileSystem fs(posix_file_system(), 3);
  constexpr int kFiles = 12;
  constexpr int kWrites = 300;
  std::vector<std::unique_ptr<File>> files;
  for (int i = 0; i < kFiles; ++i) {
    auto f = fs.open(scratch.path() + "/t" + std::to_string(i), OpenMode::kCreate);
    ASSERT_TRUE(f.ok());
    files.push_back(std::move(*f));
  }
  // Thread t writes the bytes [t * kWrites, (t + 1) * kWrites) of every
  // file; the threads overlap in files, never in ranges.
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int w = 0; w < kWrites; ++w) {
        for (int i = 0; i < kFiles; ++i) {
          const char c = static_cast<char>('a' + t);
          const uint64_t at = static_cast<uint64_t>(t * kWrites + w);
          if (!write_all(*files[static_cast<size_t>((i + t) % kFiles)],
                         std::as_bytes(std::span(&c, 1)), at)
                   .ok()) {
            failures.fetch_add(1);
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  std::string want;
  for (int t = 0; t < kThreads; ++t) want += std::string(kWrites, static_cast<char>('a' + t));
  for (auto& f : files) EXPECT_EQ(read_all(*f), want);
  EXPECT_LE(descriptors_below(scratch.path()), 3u);
}

TEST(BoundedFileSystem, PartitionLogsOutnumberingTheLimitAppendRollAndReadBack) {
  ScratchDir scratch;
  BoundedFileSystem fs(posix_file_system(), 4);
  const LogConfig config = testing::small_log_config(FlushPolicy::kDurable);
  constexpr int kLogs = 12;
  std::vector<std::unique_ptr<PartitionLog>> logs;
  for (int p = 0; p < kLogs; ++p) {
    auto log = PartitionLog::open(fs, scratch.path() + "/" + std::to_string(p), config);
    ASSERT_TRUE(log.ok()) << log.status().to_string();
    logs.push_back(std::move(*log));
  }
  std::vector<std::vector<testing::Bytes>> written(kLogs);
  for (int round = 0; round < 40; ++round) {  // 4 KiB segments: several rolls each
    for (int p = 0; p < kLogs; ++p) {
      testing::Bytes batch = testing::make_batch(2, 100, round);
      Result<AppendResult> r = logs[p]->append(batch);
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      FlushRequest request = logs[p]->begin_flush();
      ASSERT_TRUE(logs[p]->finish_flush(request, PartitionLog::run_flush(request)).ok());
      written[p].push_back(batch);
      ASSERT_LE(descriptors_below(scratch.path()), 4u);
    }
  }
  EXPECT_GT(fs.reopens(), 0u);
  for (int p = 0; p < kLogs; ++p) {
    EXPECT_GT(logs[p]->segment_count(), 1u);
    EXPECT_TRUE(testing::SameBatches(testing::read_batches(*logs[p], 0, 1 << 20), written[p]));
  }
  // And after a restart through the same bound.
  logs.clear();
  for (int p = 0; p < kLogs; ++p) {
    auto log = PartitionLog::open(fs, scratch.path() + "/" + std::to_string(p), config);
    ASSERT_TRUE(log.ok()) << log.status().to_string();
    EXPECT_TRUE(testing::SameBatches(testing::read_batches(**log, 0, 1 << 20), written[p]));
    ASSERT_LE(descriptors_below(scratch.path()), 4u);
  }
}

TEST(BoundedFileSystem, TheDefaultLimitLeavesRoomForConnections) {
  EXPECT_EQ(default_max_open_log_files(20'000, 10'000), 20'000u - 10'000u - 256u);
  EXPECT_EQ(default_max_open_log_files(1'048'576, 10'000), 1'048'576u - 10'256u);
  // A limit too low for the connections configured: half of it.
  EXPECT_EQ(default_max_open_log_files(1'024, 10'000), 512u);
  EXPECT_EQ(default_max_open_log_files(20, 10'000), 16u);
}

}  // namespace
}  // namespace spillway::storage
