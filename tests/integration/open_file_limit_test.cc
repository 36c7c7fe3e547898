// The broker's bound on open partition files ([limits] max_open_log_files),
// against the real binary: a topic with several times more partitions than
// the bound takes, serves and keeps every record, across a restart, while
// the broker never holds more log and index files open than the bound; and
// a topic create that fails on the disk is logged for the operator.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "broker_process.h"
#include "broker_wire_client.h"

namespace spillway::testing {
namespace {

// The broker's descriptors on partition log and index files (below `data`;
// its own output goes to a file ending in .log too).
std::size_t open_log_files(pid_t pid, const std::filesystem::path& data) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code link_ec;
    const std::string target = std::filesystem::read_symlink(entry.path(), link_ec).string();
    if (link_ec) continue;
    const auto ends_with = [&](std::string_view ext) {
      return target.size() >= ext.size() &&
             target.compare(target.size() - ext.size(), ext.size(), ext) == 0;
    };
    if (target.rfind(data.string() + "/", 0) == 0 && (ends_with(".log") || ends_with(".index"))) {
      ++n;
    }
  }
  return n;
}

TEST(OpenFileLimit, APartitionCountSeveralTimesTheBoundIsServedWithinIt) {
  constexpr int32_t kPartitions = 60;
  constexpr std::size_t kBound = 16;
  TempDir dir;
  const std::filesystem::path data = dir.path() / "data";
  const std::vector<std::string> flags = {"--max-open-log-files", std::to_string(kBound),
                                          "--metrics-listen", "127.0.0.1:0"};
  auto broker = start_broker_on(data, flags);
  ASSERT_TRUE(broker);
  EXPECT_NE(broker->log().find("log files: at most 16 open at once"), std::string::npos)
      << broker->log();
  WireClient client(broker->port());
  ASSERT_EQ(client.create_topic("wide", kPartitions), ErrorCode::kOk) << client.last_error();
  EXPECT_LE(open_log_files(broker->pid(), data), kBound);

  // Two rounds over every partition: the second finds most files closed.
  for (int round = 0; round < 2; ++round) {
    for (int32_t p = 0; p < kPartitions; ++p) {
      const std::string value = "p" + std::to_string(p) + "r" + std::to_string(round);
      auto r = client.produce("wide", p, make_batch({{"k", value}}));
      ASSERT_EQ(r.size(), 1u);
      ASSERT_EQ(r[0].code, ErrorCode::kOk) << r[0].message;
      ASSERT_EQ(r[0].base_offset, round);
    }
    EXPECT_LE(open_log_files(broker->pid(), data), kBound);
  }
  const auto read_back = [&](WireClient& c) {
    for (int32_t p = 0; p < kPartitions; ++p) {
      FetchResult f = c.fetch("wide", p, 0);
      ASSERT_EQ(f.code, ErrorCode::kOk) << f.message;
      std::vector<Record> records = records_in(f.records);
      ASSERT_EQ(records.size(), 2u) << "partition " << p;
      EXPECT_EQ(records[0].value, "p" + std::to_string(p) + "r0");
      EXPECT_EQ(records[1].value, "p" + std::to_string(p) + "r1");
    }
  };
  read_back(client);
  EXPECT_LE(open_log_files(broker->pid(), data), kBound);

  const std::string page = scrape(metrics_port(*broker));
  EXPECT_EQ(metric(page, "spillway_max_open_log_files"), 16) << page;
  EXPECT_LE(metric(page, "spillway_open_log_files"), 16);
  EXPECT_GE(metric(page, "spillway_open_log_files"), 1);
  // 60 partitions through 16 descriptors: most uses were reopens.
  EXPECT_GT(metric(page, "spillway_log_file_reopens_total"), kPartitions);

  // A restart opens every partition through the same bound.
  ASSERT_TRUE(broker->stop(SIGTERM).ok());
  broker = start_broker_on(data, flags);
  ASSERT_TRUE(broker);
  EXPECT_LE(open_log_files(broker->pid(), data), kBound);
  WireClient again(broker->port());
  read_back(again);
  EXPECT_LE(open_log_files(broker->pid(), data), kBound);
}

TEST(OpenFileLimit, ATopicCreateThatFailsOnTheDiskIsLogged) {
  TempDir dir;
  const std::filesystem::path data = dir.path() / "data";
  auto broker = start_broker_on(data);
  ASSERT_TRUE(broker);
  // A file where partition 1's directory must go: creating it fails.
  std::filesystem::create_directories(data / "topics" / "blocked");
  std::ofstream(data / "topics" / "blocked" / "1") << "in the way";
  WireClient client(broker->port());
  EXPECT_NE(client.create_topic("blocked", 2), ErrorCode::kOk);
  const std::string log = broker->log();
  EXPECT_NE(log.find("cannot create topic blocked (2 partition(s)): "), std::string::npos) << log;
  // Nothing of it stays behind, and the name can be used once the disk allows.
  EXPECT_FALSE(std::filesystem::exists(data / "topics" / "blocked"));
  EXPECT_EQ(client.create_topic("blocked", 2), ErrorCode::kOk) << client.last_error();
}

}  // namespace
}  // namespace spillway::testing
