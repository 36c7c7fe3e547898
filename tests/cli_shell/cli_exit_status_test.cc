// `spillway` exit statuses as docs/cli.md lists them (client/cli/
// exit_status.h): 0 success, 1 the operation failed, 2 a usage error found
// before anything connects. Usage errors need no broker; each is run with a
// --broker nothing listens on where the subcommand takes one, so a status
// of 1 (cannot connect) would show the check was missed.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shell_tools.h"

namespace spillway::testing {
namespace {

// 127.0.0.1:PORT with a port the kernel just handed out and that nothing
// listens on any more.
std::string closed_address() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ::close(fd);
  return "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
}

struct UsageCase {
  std::vector<std::string> args;
  std::string message;  // part of what is printed
};

TEST(CliExitStatus, UsageErrorsExit2BeforeConnecting) {
  const std::string nowhere = closed_address();
  const std::vector<UsageCase> cases = {
      {{"ping", "--broker", "localhost"}, "broker address 'localhost' is not HOST:PORT"},
      {{"perf", "e2e", "--size", "4", "--broker", nowhere}, "--size: must be at least 8"},
      {{"ping", "--count", "0", "--broker", nowhere}, "--count"},
      {{"ping", "--timeout-ms", "soon", "--broker", nowhere}, "--timeout-ms"},
      {{"produce", "t", "--acks", "most", "--broker", nowhere}, "--acks"},
      {{"consume", "t", "--partition", "-1", "--broker", nowhere}, "--partition"},
      {{"topic", "create", "--broker", nowhere}, "name is required"},
      {{"topic", "create", "t", "--partitions", "0", "--broker", nowhere}, "--partitions"},
      {{"group", "reset-offsets", "g", "--topic", "t", "--broker", nowhere}, "--to-earliest"},
      {{"ping", "extra", "--broker", nowhere}, "extra"},
      {{"ping", "--tls-ca", "/nonexistent/ca.pem", "--broker", nowhere}, "--tls-ca"},
      {{"user", "delete", std::string("a\x01b"), "--broker", nowhere}, "control character"},
      {{"user", "list", "--timeout-ms", "0", "--broker", nowhere}, "--timeout-ms"},
      {{"acl", "list", "--timeout-ms", "-1", "--broker", nowhere}, "--timeout-ms"},
      {{"cluster", "describe", "--timeout-ms", "0", "--broker", nowhere}, "--timeout-ms"},
      {{"topic", "create", "bad name!", "--broker", nowhere}, "may contain only letters"},
      {{"produce", "", "--broker", nowhere}, "topic name must be 1 to 249 bytes long"},
      {{"consume", "..", "--broker", nowhere}, "topic name may not be"},
      {{"perf", "produce", "--topic", ".deleted-1-x", "--broker", nowhere}, "reserved"},
      {{"group", "reset-offsets", "g", "--topic", "a/b", "--to-latest", "--broker", nowhere},
       "may contain only"},
      {{"pnig"}, "unknown subcommand 'pnig'"},
      {{"ping", "--brokr", nowhere}, "unknown flag '--brokr'"},
      {{}, "A subcommand is required"},
  };
  for (const UsageCase& c : cases) {
    const ProcessExit r = run_cli(c.args);
    std::string command;
    for (const std::string& a : c.args) command += " " + a;
    EXPECT_EQ(r.exit_code, 2) << "spillway" << command << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, c.message)) << "spillway" << command << "\n" << r.output;
  }
}

TEST(CliExitStatus, HelpVersionAndVersionCommandExit0) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"},
                                             {"--version"},
                                             {"version"},
                                             {"topic", "--help"},
                                             {"perf", "e2e", "--help"}}) {
    const ProcessExit r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args.front() << "\n" << r.output;
  }
}

TEST(CliExitStatus, NoBrokerExits1) {
  const std::string nowhere = closed_address();
  const ProcessExit r = run_cli({"ping", "--broker", nowhere, "--timeout-ms", "2000"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot connect to " + nowhere)) << r.output;
}

TEST(CliExitStatus, ARefusedRequestExits1) {
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  const std::string address = (*broker)->address();
  ProcessExit r = run_cli({"topic", "describe", "no-such-topic", "--broker", address});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "no-such-topic")) << r.output;
  r = run_cli({"topic", "create", "orders", "--broker", address});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_cli({"topic", "create", "orders", "--broker", address});  // exists already
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

}  // namespace
}  // namespace spillway::testing
