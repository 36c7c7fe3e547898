// The memory budget against the real broker: clients that send fetches and
// never read the responses hold at most their share (and the broker at most
// its budget, plus one request per connection), while a client that reads
// its responses keeps producing and consuming.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "broker_process.h"
#include "broker_wire_client.h"

namespace spillway::testing {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kHostileConnections = 20;
constexpr int kFetchesEach = 64;  // the default max_in_flight_per_connection
constexpr int64_t kMiB = 1024;    // in KiB, as /proc reports

std::unique_ptr<BrokerProcess> start(std::vector<std::string> args) {
  BrokerProcess::Options options;
  options.args = std::move(args);
  options.args.insert(options.args.end(), {"--metrics-listen", "127.0.0.1:0", "--threads", "2"});
  auto broker = BrokerProcess::start(options);
  EXPECT_TRUE(broker.ok()) << broker.status().to_string();
  return broker.ok() ? std::move(*broker) : nullptr;
}

// About 9.6 MB in one partition: 12 batches of 8 records of 100 KB.
void fill_big_topic(WireClient& client) {
  ASSERT_EQ(client.create_topic("big", 1), ErrorCode::kOk);
  std::vector<std::pair<std::optional<std::string>, std::string>> records;
  for (int i = 0; i < 8; ++i) records.push_back({"k", std::string(100'000, 'v')});
  const auto batch = make_batch(records);
  for (int i = 0; i < 12; ++i) {
    auto r = client.produce("big", 0, batch);
    ASSERT_EQ(r.size(), 1u);
    ASSERT_EQ(r[0].code, ErrorCode::kOk);
  }
}

// Connections that each send kFetchesEach fetches of up to 8 MiB and read
// nothing (with a small receive buffer, so the broker backs up at once).
std::vector<std::unique_ptr<WireClient>> start_hostile_fetchers(uint16_t port) {
  std::vector<std::unique_ptr<WireClient>> hostile;
  for (int c = 0; c < kHostileConnections; ++c) {
    hostile.push_back(
        std::make_unique<WireClient>(port, RawClient::Options{.receive_buffer_bytes = 4096}));
    EXPECT_TRUE(hostile.back()->connected());
    const auto body = hostile.back()->fetch_body("big", 0, 0, 0, 8 << 20);
    for (int i = 0; i < kFetchesEach; ++i) {
      EXPECT_TRUE(hostile.back()->send_request(static_cast<int16_t>(frame::ApiKey::kFetch), 0, i,
                                               static_cast<uint32_t>(body.size()), body));
    }
  }
  return hostile;
}

// Waits until every hostile connection is paused, failing
// fast if the broker's resident memory passes `rss_limit_kib` meanwhile.
void wait_until_paused(const BrokerProcess& broker, int64_t rss_limit_kib) {
  const uint16_t port = metrics_port(broker);
  ASSERT_NE(port, 0);
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  for (;;) {
    const int64_t rss = process_status_kib(broker.pid(), "VmRSS");
    ASSERT_LT(rss, rss_limit_kib) << "the broker buffers for clients that never read";
    const std::string page = scrape(port);
    // Paused for memory, or because all its requests were read before
    // their responses took memory (the ring of exchanges is full).
    const int64_t paused =
        metric(page, "spillway_connections_paused{reason=\"max_in_flight\"}") +
        metric(page, "spillway_connections_paused{reason=\"connection_share\"}") +
        metric(page, "spillway_connections_paused{reason=\"memory_budget\"}");
    if (paused >= kHostileConnections) return;
    ASSERT_LT(Clock::now(), deadline) << "only " << paused << " connections paused";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a poll interval, not a wait
  }
}

// A client that reads its responses: produce and fetch back `rounds`
// batches, each answered. Prints the round-trip times (informational).
void normal_client_is_served(uint16_t port, int rounds, const char* topic = "normal") {
  WireClient client(port);
  ASSERT_EQ(client.create_topic(topic, 1), ErrorCode::kOk);
  const auto batch = make_batch({{"key", std::string(1000, 'n')}});
  std::vector<double> produce_us, fetch_us;
  for (int i = 0; i < rounds; ++i) {
    auto t0 = Clock::now();
    auto produced = client.produce(topic, 0, batch);
    produce_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    ASSERT_EQ(produced.size(), 1u) << i;
    ASSERT_EQ(produced[0].code, ErrorCode::kOk) << i;
    ASSERT_EQ(produced[0].base_offset, i);
    t0 = Clock::now();
    FetchResult fetched = client.fetch(topic, 0, i);
    fetch_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    ASSERT_EQ(fetched.code, ErrorCode::kOk) << i;
    auto records = records_in(fetched.records, i);
    ASSERT_FALSE(records.empty()) << i;
    EXPECT_EQ(records[0].value, std::string(1000, 'n'));
  }
  std::sort(produce_us.begin(), produce_us.end());
  std::sort(fetch_us.begin(), fetch_us.end());
  std::printf(
      "normal client on %s: produce p50 %.0f us max %.0f us; fetch p50 %.0f us max %.0f us (%d "
      "rounds)\n",
      topic, produce_us[produce_us.size() / 2], produce_us.back(), fetch_us[fetch_us.size() / 2],
      fetch_us.back(), rounds);
}

TEST(MemoryBudget, ClientsThatFetchAndNeverReadHoldOnlyTheirShare) {
  auto broker = start({});
  ASSERT_TRUE(broker);
  WireClient admin(broker->port());
  fill_big_topic(admin);
  normal_client_is_served(broker->port(), 200, "alone");  // for comparison (printed)
  const int64_t baseline = process_status_kib(broker->pid(), "VmRSS");
  // Each may hold its 16 MiB share plus one batch; everything else (the
  // pool's cached buffers, socket state) stays well inside 128 MiB.
  const int64_t limit = baseline + kHostileConnections * 17 * kMiB + 128 * kMiB;
  auto hostile = start_hostile_fetchers(broker->port());
  wait_until_paused(*broker, limit);
  normal_client_is_served(broker->port(), 200);
  const std::string page = scrape(metrics_port(*broker));
  const int64_t in_use = metric(page, "spillway_memory_in_use_bytes");
  EXPECT_LE(in_use, int64_t{kHostileConnections} * (17 << 20));
  const int64_t peak = process_status_kib(broker->pid(), "VmHWM");
  std::printf(
      "broker RSS %lld KiB before, peak %lld KiB with %d clients that never read; "
      "budget in use %lld bytes\n",
      static_cast<long long>(baseline), static_cast<long long>(peak), kHostileConnections,
      static_cast<long long>(in_use));
  EXPECT_LT(peak, limit);
}

TEST(MemoryBudget, TheBrokerWideBudgetStopsThoseThatHoldTheMost) {
  auto broker = start({"--memory-budget-bytes", std::to_string(64 << 20)});
  ASSERT_TRUE(broker);
  WireClient admin(broker->port());
  fill_big_topic(admin);
  const int64_t baseline = process_status_kib(broker->pid(), "VmRSS");
  // 64 MiB of budget, and past it at most one 64 KiB grant plus one batch
  // (800 KB) per connection.
  const int64_t limit = baseline + 64 * kMiB + kHostileConnections * kMiB + 128 * kMiB;
  auto hostile = start_hostile_fetchers(broker->port());
  wait_until_paused(*broker, limit);
  const std::string page = scrape(metrics_port(*broker));
  EXPECT_EQ(metric(page, "spillway_memory_budget_bytes"), 64 << 20);
  EXPECT_GT(metric(page, "spillway_connections_paused{reason=\"memory_budget\"}"), 0);
  const int64_t in_use = metric(page, "spillway_memory_in_use_bytes");
  EXPECT_LE(in_use, (64 << 20) + int64_t{kHostileConnections} * (1 << 20));
  // Those that read their responses are still served in full.
  normal_client_is_served(broker->port(), 200);
  EXPECT_LT(process_status_kib(broker->pid(), "VmHWM"), limit);
}

TEST(MemoryBudget, ABudgetSmallerThanOneConnectionsShareIsAConfigError) {
  BrokerProcess::Options options;
  options.args = {"--memory-budget-bytes", "1000000", "--connection-memory-bytes", "2000000"};
  auto broker = BrokerProcess::start(options);
  ASSERT_FALSE(broker.ok());
  EXPECT_NE(broker.status().message().find("limits.memory_budget_bytes (1000000) must be at least "
                                           "limits.connection_memory_bytes (2000000)"),
            std::string::npos)
      << broker.status().message();
}

}  // namespace
}  // namespace spillway::testing
