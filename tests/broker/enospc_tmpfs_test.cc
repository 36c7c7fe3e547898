// ENOSPC on a real file system: a 256 KiB tmpfs mounted in a private mount
// namespace (needs CAP_SYS_ADMIN; skipped otherwise, in which case
// PartitionGroupCommit.NoSpaceFailsTheAppendAndRecoversWhenSpaceIsFreed
// covers the same behaviour through the file-system seam), with durable
// appends through the broker's Partition (partition_driver.h). The scenario
// runs in a forked child so the mount never leaks into the test process.
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "log_testing.h"
#include "partition_driver.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {
namespace {

using broker::PartitionReply;
using broker::testing::PartitionDriver;
using testing::Bytes;

constexpr int kSkip = 77;

#define CHILD_CHECK(cond)                                                           \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::_Exit(1);                                                                \
    }                                                                               \
  } while (0)

bool same_batches(PartitionLog& log, const std::vector<Bytes>& want) {
  std::vector<Bytes> got = testing::read_batches(log, 0, 1 << 20);
  return got == want;
}

// The same, read on the partition's owner core.
bool same_batches(PartitionDriver& partition, const std::vector<Bytes>& want) {
  return partition.on_owner(
      [&](broker::Partition&, PartitionLog& log) { return same_batches(log, want); });
}

[[noreturn]] void run_child(const std::string& mount_point) {
  if (::unshare(CLONE_NEWNS) != 0) std::_Exit(kSkip);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) std::_Exit(kSkip);
  if (::mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=256k") != 0) std::_Exit(kSkip);
  FileSystem& fs = posix_file_system();
  const std::string filler = mount_point + "/filler";
  {
    auto f = fs.open(filler, OpenMode::kCreate);
    CHILD_CHECK(f.ok());
    std::vector<std::byte> junk(64 * 1024, std::byte{0x33});
    CHILD_CHECK(write_all(**f, junk, 0).ok());
  }
  LogConfig config;
  config.flush_policy = FlushPolicy::kDurable;
  config.segment_bytes = 1 << 20;
  const std::string dir = mount_point + "/p";
  auto partition = PartitionDriver::open(fs, dir, config);
  CHILD_CHECK(partition.ok());
  PartitionDriver& shared = **partition;
  std::vector<Bytes> acked;
  Status failure;
  for (int i = 0; i < 1000; ++i) {
    Bytes b = testing::make_batch(3, 1500, i);
    PartitionReply r = shared.append(b, broker::AckAfter::kSync);
    if (!r.status.ok()) {
      failure = r.status;
      break;
    }
    acked.push_back(b);
  }
  std::fprintf(stderr, "tmpfs: %zu appends acknowledged, then: %s\n", acked.size(),
               failure.to_string().c_str());
  CHILD_CHECK(failure.code() == ErrorCode::kNotEnoughSpace);
  CHILD_CHECK(!acked.empty());
  CHILD_CHECK(
      !shared.on_owner([](broker::Partition&, PartitionLog& log) { return log.read_only(); }));
  CHILD_CHECK(same_batches(shared, acked));
  // Still full: fails again, log unchanged.
  Bytes again = testing::make_batch(3, 1500, 5000);
  CHILD_CHECK(shared.append(again, broker::AckAfter::kSync).status.code() ==
              ErrorCode::kNotEnoughSpace);
  CHILD_CHECK(same_batches(shared, acked));
  // Space freed: appends succeed and continue the offsets densely.
  CHILD_CHECK(fs.remove(filler).ok());
  for (int i = 0; i < 10; ++i) {
    Bytes b = testing::make_batch(3, 1500, 6000 + i);
    PartitionReply r = shared.append(b, broker::AckAfter::kSync);
    CHILD_CHECK(r.status.ok());
    acked.push_back(b);
  }
  CHILD_CHECK(same_batches(shared, acked));
  CHILD_CHECK(
      shared.on_owner([](broker::Partition&, PartitionLog& log) { return log.close(); }).ok());
  shared.close(broker::Closing::kDeleted);  // the log is closed already
  partition->reset();
  auto reopened = PartitionLog::open(fs, dir, config);
  CHILD_CHECK(reopened.ok());
  CHILD_CHECK(same_batches(**reopened, acked));
  std::_Exit(0);
}

TEST(NoSpace, RealTmpfsAppendFailsNothingLostAndRecoversAfterSpaceIsFreed) {
  testing::ScratchDir scratch;
  const std::string mount_point = scratch.path() + "/mnt";
  std::filesystem::create_directory(mount_point);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) run_child(mount_point);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus)) << "child died, status " << wstatus;
  if (WEXITSTATUS(wstatus) == kSkip) {
    GTEST_SKIP() << "cannot mount a tmpfs here (needs CAP_SYS_ADMIN); ENOSPC is covered "
                    "through the file-system seam by Faults.NoSpace*";
  }
  EXPECT_EQ(WEXITSTATUS(wstatus), 0) << "see the child's stderr above";
}

}  // namespace
}  // namespace spillway::storage
