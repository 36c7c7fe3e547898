// The Grafana dashboard (docs/grafana/spillway.json) queries only metrics the
// broker exports: every metric name in its queries appears in a live
// broker's /metrics after records were produced and consumed by a group.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "broker_process.h"
#include "spillway/admin.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

using nlohmann::json;

// Metrics that have samples only in a cluster (docs/replication.md); a
// standalone broker exports their families (HELP and TYPE lines) only.
const std::set<std::string> kClusterOnly = {"spillway_partition_replica_lag_records"};

json read_dashboard() {
  std::ifstream in(SPILLWAY_SOURCE_DIR "/docs/grafana/spillway.json");
  return json::parse(in);  // throws, failing the test, if it is not JSON
}

// Every PromQL query of the dashboard: each panel target's expr and each
// query variable's query.
std::vector<std::string> dashboard_queries(const json& dashboard) {
  std::vector<std::string> queries;
  for (const json& panel : dashboard.at("panels")) {
    for (const json& target : panel.value("targets", json::array())) {
      queries.push_back(target.at("expr").get<std::string>());
    }
  }
  for (const json& variable : dashboard.at("templating").at("list")) {
    if (variable.at("type") == "query") {
      queries.push_back(variable.at("query").at("query").get<std::string>());
    }
  }
  return queries;
}

std::set<std::string> metric_names_in(const std::string& query) {
  static const std::regex name("spillway_[a-z0-9_]+");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(query.begin(), query.end(), name);
       it != std::sregex_iterator(); ++it) {
    names.insert(it->str());
  }
  return names;
}

uint16_t metrics_port(const BrokerProcess& broker) {
  const std::string log = broker.log();
  const std::string marker = "metrics on 127.0.0.1:";
  const size_t at = log.find(marker);
  return at == std::string::npos ? 0
                                 : static_cast<uint16_t>(std::stoi(log.substr(at + marker.size())));
}

// The body of GET /metrics (HTTP/1.0: the broker closes when done).
std::string scrape(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string request = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char chunk[16384];
      ssize_t n;
      while ((n = ::recv(fd, chunk, sizeof(chunk), 0)) > 0) response.append(chunk, n);
    }
  }
  ::close(fd);
  const size_t body = response.find("\r\n\r\n");
  return body == std::string::npos ? "" : response.substr(body + 4);
}

// Names that have at least one sample line, and names with a TYPE line.
struct Exported {
  std::set<std::string> sampled;
  std::set<std::string> typed;
};

Exported exported_names(const std::string& page) {
  Exported e;
  size_t start = 0;
  while (start < page.size()) {
    size_t end = page.find('\n', start);
    if (end == std::string::npos) end = page.size();
    const std::string line = page.substr(start, end - start);
    start = end + 1;
    if (line.rfind("# TYPE ", 0) == 0) {
      e.typed.insert(line.substr(7, line.find(' ', 7) - 7));
    } else if (!line.empty() && line[0] != '#') {
      e.sampled.insert(line.substr(0, line.find_first_of("{ ")));
    }
  }
  return e;
}

// Creates `topic` and produces `count` records to it.
void produce(const std::string& broker, const std::string& topic, int count) {
  auto admin = Admin::connect(broker);
  ASSERT_TRUE(admin.ok()) << admin.status().to_string();
  TopicOptions topic_options;
  topic_options.partitions = 3;
  ASSERT_TRUE(admin->create_topic(topic, topic_options).ok());
  ProducerOptions producer_options;
  producer_options.bootstrap = broker;
  auto producer = Producer::create(producer_options);
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();
  for (int i = 0; i < count; ++i) (*producer)->send(topic, "k" + std::to_string(i), "v");
  ASSERT_TRUE((*producer)->close().ok());
}

// Reads `count` records of `topic` as a member of `group` and commits them,
// so that the group metrics have samples.
void consume_in_group(Consumer& consumer, const std::string& topic, int count) {
  ASSERT_TRUE(consumer.subscribe({topic}).ok());
  int consumed = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (consumed < count && std::chrono::steady_clock::now() < give_up) {
    auto records = consumer.poll(std::chrono::milliseconds(500));
    ASSERT_TRUE(records.ok()) << records.status().to_string();
    consumed += static_cast<int>(records->size());
  }
  ASSERT_EQ(consumed, count);
  ASSERT_TRUE(consumer.commit().ok());
}

TEST(GrafanaDashboard, EveryPanelQueriesSpillwayMetrics) {
  const json dashboard = read_dashboard();
  EXPECT_EQ(dashboard.at("uid"), "spillway");
  int panels_with_queries = 0;
  for (const json& panel : dashboard.at("panels")) {
    if (panel.at("type") == "row") continue;
    const json targets = panel.value("targets", json::array());
    EXPECT_FALSE(targets.empty()) << panel.at("title");
    for (const json& target : targets) {
      EXPECT_FALSE(metric_names_in(target.at("expr").get<std::string>()).empty())
          << panel.at("title") << ": " << target.at("expr");
      // The data source comes from the dashboard's variable, so the same
      // file works provisioned (docker/monitoring) and imported by hand.
      EXPECT_EQ(target.at("datasource").at("uid"), "${datasource}") << panel.at("title");
    }
    ++panels_with_queries;
  }
  EXPECT_GE(panels_with_queries, 20);
}

TEST(GrafanaDashboard, QueriesOnlyMetricsALiveBrokerExports) {
  BrokerProcess::Options options;
  options.args = {"--metrics-listen", "127.0.0.1:0"};
  auto broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  const uint16_t port = metrics_port(**broker);
  ASSERT_NE(port, 0) << (*broker)->log();

  constexpr int kRecords = 200;
  produce((*broker)->address(), "dashboard", kRecords);
  if (HasFatalFailure()) return;
  ConsumerOptions consumer_options;
  consumer_options.bootstrap = (*broker)->address();
  consumer_options.group_id = "dashboard-group";
  auto consumer = Consumer::create(consumer_options);
  ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
  // Still a member while /metrics is read.
  consume_in_group(**consumer, "dashboard", kRecords);
  if (HasFatalFailure()) return;
  const Exported exported = exported_names(scrape(port));
  ASSERT_FALSE(exported.sampled.empty());

  std::set<std::string> queried;
  for (const std::string& query : dashboard_queries(read_dashboard())) {
    for (const std::string& name : metric_names_in(query)) queried.insert(name);
  }
  ASSERT_FALSE(queried.empty());
  for (const std::string& name : queried) {
    if (kClusterOnly.count(name) != 0) {
      EXPECT_EQ(exported.typed.count(name), 1u) << name << " is not exported";
    } else {
      EXPECT_EQ(exported.sampled.count(name), 1u) << name << " has no sample in /metrics";
    }
  }
}

}  // namespace
}  // namespace spillway::testing
