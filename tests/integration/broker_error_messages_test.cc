// What error messages tell clients, against the real broker: never the
// server's absolute paths (a full disk, an offsets file that cannot be
// written), never raw bytes a client sent that are not printable UTF-8.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>

#include <filesystem>

#include "broker_process.h"
#include "broker_wire_client.h"

namespace spillway::testing {
namespace {

std::unique_ptr<BrokerProcess> start_on(const std::filesystem::path& data_dir,
                                        std::vector<std::string> args = {}) {
  BrokerProcess::Options options;
  options.default_data_dir = false;
  options.args = {"--threads", "2", "--data-dir", data_dir.string()};
  options.args.insert(options.args.end(), args.begin(), args.end());
  auto broker = BrokerProcess::start(options);
  EXPECT_TRUE(broker.ok()) << broker.status().to_string();
  return broker.ok() ? std::move(*broker) : nullptr;
}

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
  auto broker = start_on(dir.path() / "data");
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
  auto broker = start_on(data);
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
  auto broker = start_on(dir.path() / "data");
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

// A private mount namespace for this test process (the broker it starts
// inherits it), or false when the process may not have one.
bool private_mounts() {
  return ::unshare(CLONE_NEWNS) == 0 &&
         ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
}

TEST(BrokerErrorMessages, AFullDiskIsReportedWithoutTheDataDirectory) {
  if (!private_mounts()) GTEST_SKIP() << "needs CAP_SYS_ADMIN for a private mount namespace";
  TempDir dir;
  const auto data = dir.path() / "data";
  std::filesystem::create_directories(data);
  ASSERT_EQ(::mount("tmpfs", data.c_str(), "tmpfs", 0, "size=512k"), 0);
  {
    auto broker = start_on(data);
    ASSERT_TRUE(broker);
    WireClient client(broker->port());
    ASSERT_EQ(client.create_topic("full", 1), ErrorCode::kOk);
    const auto batch = make_batch({{"k", std::string(32 << 10, 'x')}});
    ProduceResult failed{};
    for (int i = 0; i < 64 && failed.code == ErrorCode::kOk; ++i) {
      auto r = client.produce("full", 0, batch);
      ASSERT_EQ(r.size(), 1u);
      failed = r[0];
    }
    EXPECT_EQ(failed.code, ErrorCode::kNotEnoughSpace) << failed.message;
    EXPECT_NE(failed.message.find("No space left on device"), std::string::npos) << failed.message;
    EXPECT_EQ(failed.message.find(dir.path().string()), std::string::npos) << failed.message;
    EXPECT_EQ(failed.message.find('/'), std::string::npos) << failed.message;
    ASSERT_TRUE(broker->stop(SIGTERM).ok());
  }
  ASSERT_EQ(::umount(data.c_str()), 0);
}

}  // namespace
}  // namespace spillway::testing
