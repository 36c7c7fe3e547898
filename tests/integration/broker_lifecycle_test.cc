// The real spillway-broker binary: start on an ephemeral port, serve,
// stop on SIGTERM/SIGINT with exit 0, refuse a second broker on one data dir.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "broker_process.h"
#include "raw_client.h"
#include "spillway/admin.h"

namespace spillway::testing {
namespace {

TEST(BrokerLifecycle, StartsServesAndStopsCleanlyOnSigterm) {
  auto broker = BrokerProcess::start({.args = {"--threads", "2"}});
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  BrokerProcess& b = **broker;
  EXPECT_NE(b.port(), 0);

  // The start-up line names version, address, data directory and config.
  const std::string log = b.log();
  EXPECT_NE(log.find("spillway-broker 0.1.0 listening on 127.0.0.1:" + std::to_string(b.port())),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("data_dir \"" + b.data_dir().string() + "\""), std::string::npos) << log;
  EXPECT_NE(log.find("config \""), std::string::npos) << log;
  EXPECT_TRUE(std::filesystem::exists(b.data_dir() / "LOCK"));

  Result<Admin> admin = Admin::connect(b.address());
  ASSERT_TRUE(admin.ok()) << admin.status().to_string();
  Result<ApiVersionsResponse> versions = admin->api_versions();
  ASSERT_TRUE(versions.ok()) << versions.status().to_string();
  EXPECT_EQ(versions->broker_version, "spillway-broker 0.1.0");
  ASSERT_FALSE(versions->apis.empty());
  EXPECT_EQ(versions->apis[0].api_key, static_cast<int16_t>(frame::ApiKey::kApiVersions));

  Result<ProcessExit> exit = b.stop(SIGTERM);
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->signal, 0);
  EXPECT_EQ(exit->exit_code, 0) << exit->output;
  EXPECT_NE(exit->output.find("received SIGTERM"), std::string::npos) << exit->output;
  EXPECT_NE(exit->output.find("stopped cleanly"), std::string::npos) << exit->output;
}

TEST(BrokerLifecycle, SigintAlsoStopsCleanly) {
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  Result<ProcessExit> exit = (*broker)->stop(SIGINT);
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->exit_code, 0) << exit->output;
  EXPECT_NE(exit->output.find("received SIGINT"), std::string::npos) << exit->output;
}

TEST(BrokerLifecycle, OpenConnectionsDoNotBlockShutdown) {
  auto broker = BrokerProcess::start({.args = {"--threads", "3"}});
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  BrokerProcess& b = **broker;
  // Idle connections on every thread, one with a request answered, one
  // halfway through a request header.
  RawClient idle1(b.port()), idle2(b.port()), answered(b.port()), partial(b.port());
  ASSERT_EQ(answered.api_versions_round_trip(7), "spillway-broker 0.1.0");
  const std::array<std::byte, 5> half_header{};
  ASSERT_TRUE(partial.send_bytes(half_header));
  ASSERT_EQ(answered.api_versions_round_trip(8), "spillway-broker 0.1.0");

  Result<ProcessExit> exit = b.stop(SIGTERM);
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->exit_code, 0) << exit->output;
  EXPECT_TRUE(idle1.closed_by_peer());
  EXPECT_TRUE(answered.closed_by_peer());
  EXPECT_TRUE(partial.closed_by_peer());
}

TEST(BrokerLifecycle, PipelinedRequestsAreAllAnsweredInOrder) {
  auto broker = BrokerProcess::start({.args = {"--max-in-flight-per-connection", "2"}});
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  RawClient client((*broker)->port());
  // More requests than the queue holds, sent before reading any response:
  // the broker must stop reading, not drop or reorder.
  constexpr int kRequests = 200;
  for (int i = 0; i < kRequests; ++i) ASSERT_TRUE(client.send_api_versions(1000 + i));
  for (int i = 0; i < kRequests; ++i) {
    auto response = client.read_response();
    ASSERT_TRUE(response.has_value()) << "response " << i;
    EXPECT_EQ(response->header.correlation_id, 1000 + i);
    EXPECT_EQ(response->header.error_code, ErrorCode::kOk);
  }
}

TEST(BrokerLifecycle, SecondBrokerOnTheSameDataDirIsRefused) {
  auto first = BrokerProcess::start();
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  Result<ProcessExit> second =
      run_process(broker_binary(), {"--listen", "127.0.0.1:0", "--kafka-listen", "127.0.0.1:0",
                                    "--data-dir", (*first)->data_dir().string()});
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  EXPECT_NE(second->exit_code, 0);
  EXPECT_NE(second->output.find("in use by another spillway-broker"), std::string::npos)
      << second->output;
  EXPECT_EQ(second->output.find("listening on"), std::string::npos) << second->output;
  // The first one is unaffected.
  RawClient client((*first)->port());
  EXPECT_EQ(client.api_versions_round_trip(1), "spillway-broker 0.1.0");
}

TEST(BrokerLifecycle, AddressInUseFailsWithNonZeroExit) {
  auto first = BrokerProcess::start();
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  TempDir dir;
  Result<ProcessExit> second =
      run_process(broker_binary(), {"--listen", (*first)->address(), "--kafka-listen",
                                    "127.0.0.1:0", "--data-dir", (dir.path() / "data").string()});
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  EXPECT_EQ(second->exit_code, 1) << second->output;
  EXPECT_NE(second->output.find("cannot listen on " + (*first)->address()), std::string::npos)
      << second->output;
}

}  // namespace
}  // namespace spillway::testing
