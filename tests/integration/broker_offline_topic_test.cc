// A topic whose metadata cannot be read or parsed, against the real broker:
// the broker starts, logs the file and the problem, serves every other topic,
// answers requests to the bad one with its error, and lets it be deleted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "broker_process.h"
#include "broker_wire_client.h"

namespace spillway::testing {
namespace {

TEST(BrokerOfflineTopic, BadMetadataTakesOnlyItsTopicOffline) {
  TempDir dir;
  const std::filesystem::path data = dir.path() / "data";
  {
    auto broker = start_broker_on(data);
    ASSERT_TRUE(broker);
    WireClient client(broker->port());
    for (const char* name : {"good", "garbled", "unreadable"}) {
      ASSERT_EQ(client.create_topic(name, 2), ErrorCode::kOk) << name;
      ASSERT_EQ(client.produce(name, 1, make_batch({{"k", name}}))[0].code, ErrorCode::kOk);
    }
    ASSERT_TRUE(broker->stop(SIGTERM).ok());
  }
  // One metadata file that does not parse, one that cannot be read at all.
  const std::filesystem::path garbled = data / "topics" / "garbled" / "topic.meta";
  std::ofstream(garbled, std::ios::trunc) << "partitions=lots\n";
  const std::filesystem::path unreadable = data / "topics" / "unreadable" / "topic.meta";
  std::filesystem::remove(unreadable);
  std::filesystem::create_directory(unreadable);  // read() fails: EISDIR

  auto broker = start_broker_on(data);
  ASSERT_TRUE(broker) << "one bad topic stopped the broker";
  const std::string log = broker->log();
  EXPECT_NE(log.find("topic garbled is offline: " + garbled.string()), std::string::npos) << log;
  EXPECT_NE(log.find("bad number for partitions"), std::string::npos) << log;
  EXPECT_NE(
      log.find("topic unreadable is offline: read " + unreadable.string() + ": Is a directory"),
      std::string::npos)
      << log;

  WireClient client(broker->port());
  auto all = client.metadata(true);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all["good"].code, ErrorCode::kOk);
  EXPECT_EQ(all["good"].partitions.size(), 2u);
  for (const char* name : {"garbled", "unreadable"}) {
    SCOPED_TRACE(name);
    const TopicInfo& info = all[name];
    EXPECT_EQ(info.code, ErrorCode::kIoError);
    EXPECT_NE(info.message.find(std::string("topic ") + name + " is offline"), std::string::npos)
        << info.message;
    EXPECT_EQ(info.message.find(dir.path().string()), std::string::npos) << info.message;
    EXPECT_TRUE(info.partitions.empty());
    for (int32_t partition : {0, 1, -1}) {
      auto r = client.produce(name, partition, make_batch({{"k", "v"}}));
      ASSERT_EQ(r.size(), 1u);
      EXPECT_EQ(r[0].code, ErrorCode::kIoError) << r[0].message;
      EXPECT_EQ(r[0].message, info.message);
    }
    FetchResult f = client.fetch(name, 1, 0);
    EXPECT_EQ(f.code, ErrorCode::kIoError) << f.message;
    EXPECT_EQ(f.message, info.message);
    EXPECT_EQ(client.create_topic(name, 1), ErrorCode::kTopicExists);
  }

  // The healthy topic kept its data and takes more.
  FetchResult f = client.fetch("good", 1, 0);
  ASSERT_EQ(f.code, ErrorCode::kOk) << f.message;
  ASSERT_EQ(records_in(f.records).size(), 1u);
  EXPECT_EQ(client.produce("good", 1, make_batch({{"k", "more"}}))[0].base_offset, 1);

  // An operator can get rid of the bad topics, and the names are free again.
  EXPECT_EQ(client.delete_topic("garbled"), ErrorCode::kOk) << client.last_error();
  EXPECT_EQ(client.delete_topic("unreadable"), ErrorCode::kOk) << client.last_error();
  EXPECT_EQ(client.metadata(true).size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(data / "topics" / "garbled"));
  EXPECT_EQ(client.create_topic("garbled", 1), ErrorCode::kOk) << client.last_error();
  EXPECT_EQ(client.fetch("garbled", 0, 0).high_watermark, 0);
}

}  // namespace
}  // namespace spillway::testing
