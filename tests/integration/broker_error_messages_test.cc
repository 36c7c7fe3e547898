// What error messages tell clients, against the real broker: never the
// server's absolute paths (a full disk, an offsets file that cannot be
// written), never raw bytes a client sent that are not printable UTF-8,
// invalid_argument for a group name too long to store; and what the broker
// logs of a full disk.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <filesystem>
#include <fstream>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "private_mounts.h"

namespace spillway::testing {
namespace {

// True iff every byte of `s` is printable ASCII (the escaped form of what a
// client sent is ASCII; the broker's own messages are too).
bool printable_ascii(std::string_view s) {
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

TEST(BrokerErrorMessages, ClientBytesThatAreNotPrintableUtf8AreEscaped) {
  TempDir dir;
  auto broker = start_broker_on(dir.path() / "data");
  ASSERT_TRUE(broker);
  WireClient client(broker->port());
  const std::string name("bad\xff\xfe\x1b[2J\n", 10);
  const std::string escaped = "bad\\xff\\xfe\\x1b[2J\\x0a";

  auto produced = client.produce(name, 0, make_batch({{"k", "v"}}));
  ASSERT_EQ(produced.size(), 1u);
  EXPECT_EQ(produced[0].code, ErrorCode::kUnknownTopic);
  EXPECT_EQ(produced[0].message, "unknown topic " + escaped);

  FetchResult fetched = client.fetch(name, 0, 0);
  EXPECT_EQ(fetched.code, ErrorCode::kUnknownTopic);
  EXPECT_EQ(fetched.message, "unknown topic " + escaped);

  auto described = client.metadata(false, {name});
  ASSERT_EQ(described.size(), 1u);
  EXPECT_EQ(described.begin()->second.message, "unknown topic " + escaped);

  EXPECT_EQ(client.commit("g", name, 0, 1).message, "unknown topic " + escaped);

  // Errors in the frame header too.
  EXPECT_EQ(client.delete_topic(name), ErrorCode::kUnknownTopic);
  EXPECT_EQ(client.last_error(), "unknown topic " + escaped);
  EXPECT_EQ(client.create_topic(name, 1), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(printable_ascii(client.last_error())) << client.last_error();
  EXPECT_NE(client.last_error().find(escaped), std::string::npos) << client.last_error();
}

TEST(BrokerErrorMessages, AnOffsetsFileThatCannotBeWrittenIsReportedWithoutItsPath) {
  TempDir dir;
  const auto data = dir.path() / "data";
  auto broker = start_broker_on(data);
  ASSERT_TRUE(broker);
  WireClient client(broker->port());
  ASSERT_EQ(client.create_topic("t", 1), ErrorCode::kOk);
  // The commit writes offsets/<hex of "g">.offsets.tmp first; a directory in
  // its way makes that fail (EISDIR).
  std::filesystem::create_directories(data / "offsets" / "67.offsets.tmp");

  CommitResult r = client.commit("g", "t", 0, 5);
  EXPECT_EQ(r.code, ErrorCode::kIoError);
  EXPECT_NE(r.message.find("67.offsets.tmp"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("Is a directory"), std::string::npos) << r.message;
  EXPECT_EQ(r.message.find(dir.path().string()), std::string::npos) << r.message;
}

TEST(BrokerErrorMessages, AGroupNameTooLongForItsFileIsAnInvalidArgument) {
  TempDir dir;
  auto broker = start_broker_on(dir.path() / "data");
  ASSERT_TRUE(broker);
  WireClient client(broker->port());
  ASSERT_EQ(client.create_topic("t", 1), ErrorCode::kOk);
  EXPECT_EQ(client.commit(std::string(121, 'g'), "t", 0, 1).code, ErrorCode::kOk);
  for (size_t length : {122, 200, 1000}) {
    CommitResult r = client.commit(std::string(length, 'g'), "t", 0, 1);
    EXPECT_EQ(r.code, ErrorCode::kInvalidArgument) << length << ": " << r.message;
    EXPECT_NE(r.message.find("group name must be 1 to 121 bytes"), std::string::npos) << r.message;
  }
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A full disk: the client's error names no server path; the broker logs the
// first failed append of each episode (with the path) and the recovery, not
// every failure.
TEST(BrokerErrorMessages, AFullDiskIsReportedWithoutTheDataDirectoryAndLoggedOncePerEpisode) {
  if (!enter_private_mount_namespace())
    GTEST_SKIP() << "needs CAP_SYS_ADMIN for a private mount namespace";
  TempDir dir;
  const auto data = dir.path() / "data";
  std::filesystem::create_directories(data);
  ASSERT_EQ(::mount("tmpfs", data.c_str(), "tmpfs", 0, "size=512k"), 0);
  const auto filler = data / "filler";
  {
    auto broker = start_broker_on(data);
    ASSERT_TRUE(broker);
    WireClient client(broker->port());
    ASSERT_EQ(client.create_topic("full", 2), ErrorCode::kOk);
    std::ofstream(filler) << std::string(128 << 10, 'f');
    const auto batch = make_batch({{"k", std::string(32 << 10, 'x')}});
    // Fills the disk: appends to partition 0 until one fails, then three more.
    const auto fill = [&] {
      ProduceResult failed{};
      for (int i = 0; i < 64 && failed.code == ErrorCode::kOk; ++i) {
        auto r = client.produce("full", 0, batch);
        if (r.size() != 1) return ProduceResult{};
        failed = r[0];
      }
      for (int i = 0; i < 3; ++i)
        EXPECT_NE(client.produce("full", 0, batch)[0].code, ErrorCode::kOk);
      return failed;
    };

    ProduceResult failed = fill();
    EXPECT_EQ(failed.code, ErrorCode::kNotEnoughSpace) << failed.message;
    EXPECT_NE(failed.message.find("No space left on device"), std::string::npos) << failed.message;
    EXPECT_EQ(failed.message.find(dir.path().string()), std::string::npos) << failed.message;
    EXPECT_EQ(failed.message.find('/'), std::string::npos) << failed.message;
    const std::string full_line = "partition full-0: no space left on the disk: pwrite " +
                                  (data / "topics" / "full" / "0").string();
    EXPECT_EQ(count(broker->log(), full_line), 1u) << broker->log();

    // Space freed: the next append succeeds and the episode's end is logged.
    std::filesystem::remove(filler);
    auto ok = client.produce("full", 0, batch);
    ASSERT_EQ(ok.size(), 1u);
    EXPECT_EQ(ok[0].code, ErrorCode::kOk) << ok[0].message;
    EXPECT_EQ(count(broker->log(), "partition full-0: appends succeed again after 4"), 1u)
        << broker->log();

    // A second episode is logged again, once.
    std::ofstream(filler) << std::string(128 << 10, 'f');
    EXPECT_EQ(fill().code, ErrorCode::kNotEnoughSpace);
    EXPECT_EQ(count(broker->log(), full_line), 2u) << broker->log();
    ASSERT_TRUE(broker->stop(SIGTERM).ok());
  }
  ASSERT_EQ(::umount(data.c_str()), 0);
}

}  // namespace
}  // namespace spillway::testing
