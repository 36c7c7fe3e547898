// Deleting topics against the real broker: a delete of a name of any legal
// length sticks across a restart, and a delete the broker cannot carry out
// is an error to the client, with the topic left whole.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <filesystem>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "private_mounts.h"

namespace spillway::testing {
namespace {

std::string name_of_length(size_t n) {
  std::string name;
  for (size_t i = 0; i < n; ++i) name.push_back(static_cast<char>('a' + i % 26));
  return name;
}

TEST(BrokerTopicDelete, LongNamesStayDeletedAfterARestart) {
  // 245 to 249 bytes used to be too long for the deletion mark's file name.
  const std::vector<size_t> lengths = {1, 100, 244, 245, 246, 247, 248, 249};
  TempDir dir;
  {
    auto broker = start_broker_on(dir.path() / "data");
    ASSERT_TRUE(broker);
    WireClient client(broker->port());
    for (size_t n : lengths) {
      const std::string name = name_of_length(n);
      ASSERT_EQ(client.create_topic(name, 2), ErrorCode::kOk) << n;
      auto r = client.produce(name, 1, make_batch({{"k", "v"}}));
      ASSERT_EQ(r.size(), 1u);
      ASSERT_EQ(r[0].code, ErrorCode::kOk) << r[0].message;
      EXPECT_EQ(client.delete_topic(name), ErrorCode::kOk) << n << ": " << client.last_error();
    }
    EXPECT_TRUE(client.metadata(true).empty());
    ASSERT_TRUE(broker->stop(SIGTERM).ok());
  }
  auto broker = start_broker_on(dir.path() / "data");
  ASSERT_TRUE(broker);
  WireClient client(broker->port());
  EXPECT_TRUE(client.metadata(true).empty()) << "a deleted topic came back after the restart";
  for (size_t n : lengths) {
    const std::string name = name_of_length(n);
    EXPECT_EQ(client.create_topic(name, 1), ErrorCode::kOk) << n << ": " << client.last_error();
    EXPECT_EQ(client.fetch(name, 0, 0).high_watermark, 0) << n;
  }
}

TEST(BrokerTopicDelete, AFailedDeleteIsAnErrorAndTheTopicStaysWhole) {
  if (!enter_private_mount_namespace())
    GTEST_SKIP() << "needs CAP_SYS_ADMIN for a private mount namespace";
  TempDir dir;
  auto broker = start_broker_on(dir.path() / "data");
  ASSERT_TRUE(broker);
  WireClient client(broker->port());
  ASSERT_EQ(client.create_topic("pinned", 1), ErrorCode::kOk);
  ASSERT_EQ(client.produce("pinned", 0, make_batch({{"k", "v"}}))[0].code, ErrorCode::kOk);
  // A mount point cannot be renamed (EBUSY), so the broker cannot mark the
  // topic deleted.
  const std::string topic_dir = (dir.path() / "data" / "topics" / "pinned").string();
  ASSERT_EQ(::mount(topic_dir.c_str(), topic_dir.c_str(), nullptr, MS_BIND, nullptr), 0);

  EXPECT_EQ(client.delete_topic("pinned"), ErrorCode::kIoError);
  EXPECT_NE(client.last_error().find("pinned"), std::string::npos) << client.last_error();
  EXPECT_EQ(client.last_error().find(dir.path().string()), std::string::npos)
      << "the server's path reached the client: " << client.last_error();
  EXPECT_NE(broker->log().find("delete topic pinned"), std::string::npos) << broker->log();
  // Still there and serving.
  EXPECT_EQ(client.metadata(false, {"pinned"})["pinned"].code, ErrorCode::kOk);
  EXPECT_EQ(client.produce("pinned", 0, make_batch({{"k", "w"}}))[0].base_offset, 1);

  ASSERT_EQ(::umount(topic_dir.c_str()), 0);
  EXPECT_EQ(client.delete_topic("pinned"), ErrorCode::kOk) << client.last_error();
  EXPECT_EQ(client.metadata(false, {"pinned"})["pinned"].code, ErrorCode::kUnknownTopic);
}

}  // namespace
}  // namespace spillway::testing
