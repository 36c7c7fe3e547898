// The log on the real file system: a FileSlice's bytes leave through
// sendfile(2) from its descriptor, unchanged and without a user-space copy;
// many directories are synced at once.
#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "log_testing.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

using testing::Bytes;

TEST(PosixLog, SlicesCanBeSentWithSendfile) {
  testing::ScratchDir scratch;
  LogConfig config;
  config.segment_bytes = 16 * 1024;
  auto log = PartitionLog::open(posix_file_system(), scratch.path() + "/p", config);
  ASSERT_TRUE(log.ok()) << log.status().to_string();
  Bytes expected;
  for (int i = 0; i < 40; ++i) {
    Bytes b = testing::make_batch(3, 700, i);
    ASSERT_TRUE((*log)->append(b).ok());
    expected.insert(expected.end(), b.begin(), b.end());
  }
  ASSERT_GT((*log)->segment_count(), 2u);
  const std::string out_path = scratch.path() + "/out";
  const int out = ::open(out_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(out, 0);
  Offset offset(0);
  while (offset < (*log)->high_watermark()) {
    Result<FileSlice> slice = (*log)->read(offset, 5000);
    ASSERT_TRUE(slice.ok());
    ASSERT_FALSE(slice->empty());
    const int fd = slice->file->native_handle();
    ASSERT_GE(fd, 0);
    off_t pos = static_cast<off_t>(slice->position);
    uint64_t left = slice->length;
    while (left > 0) {
      const ssize_t n = ::sendfile(out, fd, &pos, left);
      ASSERT_GT(n, 0);
      left -= static_cast<uint64_t>(n);
    }
    offset = slice->next_offset;
  }
  Bytes sent(expected.size());
  ASSERT_EQ(::pread(out, sent.data(), sent.size(), 0), static_cast<ssize_t>(sent.size()));
  ::close(out);
  EXPECT_TRUE(sent == expected);
}

// Starting writeback on a real segment is accepted by the kernel and leaves
// the bytes as they were.
TEST(PosixLog, WritebackOfTheActiveSegmentSucceedsAndChangesNothing) {
  testing::ScratchDir scratch;
  LogConfig config;
  auto log = PartitionLog::open(posix_file_system(), scratch.path() + "/p", config);
  ASSERT_TRUE(log.ok()) << log.status().to_string();
  Bytes expected;
  for (int i = 0; i < 30; ++i) {
    Bytes b = testing::make_batch(2, 900, i);
    ASSERT_TRUE((*log)->append(b).ok());
    expected.insert(expected.end(), b.begin(), b.end());
  }
  WritebackRequest wb = (*log)->begin_writeback(4096);
  ASSERT_TRUE(wb.needed());
  EXPECT_EQ(wb.offset, 0u);
  EXPECT_EQ(wb.length, expected.size());
  EXPECT_TRUE(PartitionLog::run_writeback(wb).ok());
  Result<FileSlice> slice = (*log)->read(Offset(0), expected.size());
  ASSERT_TRUE(slice.ok());
  Bytes got(slice->length);
  ASSERT_TRUE(slice->file->read_at(got, slice->position).ok());
  EXPECT_TRUE(got == expected);
}

// Many directories are synced with one syncfs per file system: every one of
// them must exist (each is opened to find its file system), and one that
// does not is named in the error.
TEST(PosixFileSystem, SyncDirsOfManyDirectories) {
  testing::ScratchDir scratch;
  FileSystem& fs = posix_file_system();
  std::vector<std::string> dirs;
  for (int i = 0; i < 300; ++i) {
    dirs.push_back(scratch.path() + "/d" + std::to_string(i));
    ASSERT_TRUE(fs.create_dirs(dirs.back()).ok());
  }
  EXPECT_TRUE(fs.sync_dirs(dirs).ok());
  EXPECT_TRUE(fs.sync_dirs({dirs.begin(), dirs.begin() + 3}).ok());  // fsync each
  dirs.push_back(scratch.path() + "/missing");
  const Status st = fs.sync_dirs(dirs);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.to_string().find("missing"), std::string::npos) << st.to_string();
}

// The interval flush's group (group_sync.h): it covers directories of its
// own file system only, and a long list (one syncfs) or a short one (an
// fdatasync each) reports every file synced.
TEST(PosixFileSystem, AGroupSyncCoversItsFileSystemAndSyncsEveryFile) {
  testing::ScratchDir scratch;
  FileSystem& fs = posix_file_system();
  EXPECT_FALSE(fs.open_group_sync(scratch.path() + "/missing").ok());
  Result<std::unique_ptr<GroupSync>> group = fs.open_group_sync(scratch.path());
  ASSERT_TRUE(group.ok()) << group.status().to_string();
  ASSERT_TRUE(fs.create_dirs(scratch.path() + "/topics/t/0").ok());
  EXPECT_TRUE((*group)->covers(scratch.path() + "/topics/t/0"));
  EXPECT_FALSE((*group)->covers("/proc/self")) << "another file system";
  EXPECT_FALSE((*group)->covers(scratch.path() + "/missing"));

  std::vector<std::unique_ptr<File>> files;
  std::vector<File*> list;
  const std::byte bytes[4] = {};
  for (int i = 0; i < 100; ++i) {
    Result<std::unique_ptr<File>> f = fs.open(scratch.path() + "/f" + std::to_string(i),
                                              OpenMode::kCreate);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(write_all(**f, bytes, 0).ok());
    list.push_back(f->get());
    files.push_back(std::move(*f));
  }
  for (size_t n : {size_t{100}, size_t{3}}) {
    std::vector<Status> results(n, Status(ErrorCode::kIoError, "not synced"));
    (*group)->sync(std::span<File* const>(list).first(n), results);
    for (size_t i = 0; i < n; ++i) EXPECT_TRUE(results[i].ok()) << n << " files, file " << i;
  }
}

}  // namespace
}  // namespace spillway::storage
