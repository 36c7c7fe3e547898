// `spillway ping` against the real broker, and its failure text.
#include <gtest/gtest.h>
#include <signal.h>

#include "broker_process.h"

namespace spillway::testing {
namespace {

TEST(CliPing, PrintsTheBrokerVersion) {
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  Result<ProcessExit> ping =
      run_process(cli_binary(), {"ping", "--broker", (*broker)->address(), "--count", "2"});
  ASSERT_TRUE(ping.ok()) << ping.status().to_string();
  EXPECT_EQ(ping->exit_code, 0) << ping->output;
  EXPECT_NE(ping->output.find("spillway-broker 0.1.0 at " + (*broker)->address()),
            std::string::npos)
      << ping->output;
  EXPECT_NE(ping->output.find("serves: ApiVersions v0"), std::string::npos) << ping->output;
}

TEST(CliPing, FailsWithClearTextWhenNoBrokerListens) {
  // Start and stop a broker to get a port that nothing listens on.
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  const std::string address = (*broker)->address();
  ASSERT_TRUE((*broker)->stop(SIGTERM).ok());
  Result<ProcessExit> ping = run_process(cli_binary(), {"ping", "--broker", address});
  ASSERT_TRUE(ping.ok()) << ping.status().to_string();
  EXPECT_EQ(ping->exit_code, 1) << ping->output;
  EXPECT_NE(ping->output.find("cannot connect to " + address), std::string::npos) << ping->output;
}

TEST(CliPing, RejectsAMalformedAddress) {
  Result<ProcessExit> ping = run_process(cli_binary(), {"ping", "--broker", "no-port-here"});
  ASSERT_TRUE(ping.ok()) << ping.status().to_string();
  EXPECT_EQ(ping->exit_code, 2) << ping->output;  // a usage error (issue 11)
  EXPECT_NE(ping->output.find("is not HOST:PORT"), std::string::npos) << ping->output;
}

TEST(CliPing, HelpListsSubcommands) {
  Result<ProcessExit> help = run_process(cli_binary(), {"--help"});
  ASSERT_TRUE(help.ok()) << help.status().to_string();
  EXPECT_EQ(help->exit_code, 0);
  EXPECT_NE(help->output.find("ping"), std::string::npos) << help->output;
  Result<ProcessExit> none = run_process(cli_binary(), {});
  ASSERT_TRUE(none.ok());
  EXPECT_NE(none->exit_code, 0) << none->output;
}

TEST(BrokerHelp, ListsEveryOverrideFlag) {
  Result<ProcessExit> help = run_process(broker_binary(), {"--help"});
  ASSERT_TRUE(help.ok()) << help.status().to_string();
  EXPECT_EQ(help->exit_code, 0);
  for (const char* flag : {"--config", "--listen", "--data-dir", "--threads", "--log-level",
                           "--max-frame-bytes", "--metrics-listen", "--shutdown-timeout-ms"}) {
    EXPECT_NE(help->output.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace spillway::testing
