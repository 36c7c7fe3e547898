// The /metrics endpoint of the real broker: Prometheus text with traffic per
// topic, log sizes per partition, connections, latency histograms per api
// and the heap allocation counter.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_wire_client.h"
#include "spillway/common/kafka/metadata.h"

namespace spillway::testing {
namespace {

bool has_line_with_value_at_least(const std::string& page, const std::string& prefix,
                                  int64_t least) {
  const size_t at = page.find("\n" + prefix + " ");
  return at != std::string::npos && std::stoll(page.substr(at + prefix.size() + 2)) >= least;
}

TEST(BrokerMetrics, ServesCountersHistogramsAndGauges) {
  BrokerProcess::Options options;
  options.args = {"--metrics-listen", "127.0.0.1:0"};
  auto broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  const uint16_t port = metrics_port(**broker);
  ASSERT_NE(port, 0);
  WireClient client((*broker)->port());
  ASSERT_EQ(client.create_topic("m", 2), ErrorCode::kOk);
  const auto batch = make_batch({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  ASSERT_EQ(client.produce("m", 1, batch)[0].code, ErrorCode::kOk);
  ASSERT_EQ(records_in(client.fetch("m", 1, 0).records).size(), 3u);
  // Kafka's api keys are another numbering (its Fetch is 1, the native
  // Produce's number): its requests are counted apart, under Kafka's names.
  KafkaWireClient kafka_client((*broker)->kafka_port());
  KafkaWireClient::Reply reply;
  EXPECT_EQ(kafka_client.call<kafka::MetadataResponse>(kafka::MetadataRequest{}, 8, &reply)
                .brokers.size(),
            1u);

  const std::string page = scrape(port);
  EXPECT_EQ(page.rfind("HTTP/1.1 200 OK", 0), 0u) << page.substr(0, 100);
  EXPECT_TRUE(has_line_with_value_at_least(page, "spillway_connections", 1)) << page;
  EXPECT_TRUE(
      has_line_with_value_at_least(page, "spillway_topic_messages_in_total{topic=\"m\"}", 3));
  EXPECT_TRUE(has_line_with_value_at_least(page, "spillway_topic_bytes_in_total{topic=\"m\"}",
                                           static_cast<int64_t>(batch.size())));
  EXPECT_TRUE(
      has_line_with_value_at_least(page, "spillway_topic_messages_out_total{topic=\"m\"}", 3));
  EXPECT_TRUE(has_line_with_value_at_least(
      page, "spillway_partition_log_bytes{topic=\"m\",partition=\"1\"}",
      static_cast<int64_t>(batch.size())));
  EXPECT_TRUE(has_line_with_value_at_least(
      page, "spillway_request_latency_seconds_count{protocol=\"native\",api=\"Produce\"}", 1));
  EXPECT_TRUE(has_line_with_value_at_least(
      page,
      "spillway_request_latency_seconds_bucket{protocol=\"native\",api=\"Fetch\",le=\"+Inf\"}", 1));
  EXPECT_TRUE(has_line_with_value_at_least(
      page, "spillway_request_latency_seconds_count{protocol=\"kafka\",api=\"Metadata\"}", 1));
  // -1 when the counter is compiled out (SPILLWAY_COUNT_ALLOCATIONS=OFF).
  EXPECT_TRUE(has_line_with_value_at_least(page, "spillway_heap_allocations_total", -1));

  RawClient other(port);
  other.send_bytes(bytes_of("GET /nothing HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(string_of(other.read_until_eof()).rfind("HTTP/1.1 404", 0), 0u);
}

// A long poll that expires on a partition that gets no data leaves a
// waiter there; the waiter must not keep its connection alive (and counted,
// and holding a place in max_connections) after the client has gone.
TEST(BrokerMetrics, AConnectionWhoseLongPollExpiredIsCountedOutWhenItCloses) {
  BrokerProcess::Options options;
  options.args = {"--metrics-listen", "127.0.0.1:0"};
  auto broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  const uint16_t port = metrics_port(**broker);
  ASSERT_NE(port, 0);
  {
    WireClient client((*broker)->port());
    ASSERT_EQ(client.create_topic("idle", 1), ErrorCode::kOk);
    EXPECT_TRUE(client.fetch("idle", 0, 0, /*max_wait_ms=*/50).records.empty());
    EXPECT_NE(scrape(port).find("\nspillway_connections 1\n"), std::string::npos);
  }  // the client closes its connection
  // Counted out once its core has seen the close; nothing else ever
  // happens on "idle". Polled: there is no event to wait on from here, and
  // the bound is a guard, not a timing.
  bool counted_out = false;
  for (int i = 0; i < 1000 && !counted_out; ++i) {
    counted_out = scrape(port).find("\nspillway_connections 0\n") != std::string::npos;
    if (!counted_out) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(counted_out);
}

TEST(BrokerMetrics, AMetricsPortInUseIsNamedAsTheMetricsListener) {
  // A port this test holds.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string taken = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));

  TempDir dir;
  Result<ProcessExit> exit = run_process(
      broker_binary(), {"--listen", "127.0.0.1:0", "--kafka-listen", "127.0.0.1:0", "--data-dir",
                        (dir.path() / "data").string(), "--metrics-listen", taken});
  ::close(fd);
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->exit_code, 1) << exit->output;
  EXPECT_NE(exit->output.find("metrics endpoint ([metrics] listen): cannot listen on " + taken),
            std::string::npos)
      << exit->output;
  EXPECT_EQ(exit->output.find("listening on"), std::string::npos) << exit->output;
}

}  // namespace
}  // namespace spillway::testing
