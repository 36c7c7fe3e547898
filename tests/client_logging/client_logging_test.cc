// The client library stays quiet (issue 17): a program that links only the
// client library (quiet_client.cc) produces and consumes against the real
// broker with its stderr captured, and the spillway CLI consumes; neither
// prints a line of the library's unless asked to.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "broker_process.h"

namespace spillway::testing {
namespace {

// How a child ended: its stdout and, apart, its stderr.
struct Captured {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Single-quoted for sh (the paths here hold no single quote).
std::string quoted(const std::string& word) {
  return "'" + word + "'";
}

// Runs `binary args...` under sh with stderr sent to a file, so that it is
// read apart from stdout. `disable_io_uring` sets SPILLWAY_DISABLE_IO_URING=1
// (else unsets it), which makes the library's I/O backend line the same on
// every machine: "gather writes: writev (io_uring disabled by ...)".
Captured run_capturing_stderr(const std::string& binary, const std::vector<std::string>& args,
                              bool disable_io_uring) {
  TempDir dir;
  const std::filesystem::path err_path = dir.path() / "stderr";
  std::string command = disable_io_uring ? "SPILLWAY_DISABLE_IO_URING=1 exec "
                                         : "unset SPILLWAY_DISABLE_IO_URING; exec ";
  command += quoted(binary);
  for (const std::string& arg : args) command += " " + quoted(arg);
  command += " 2>" + quoted(err_path.string());
  Captured captured;
  Result<ProcessExit> exit = run_process("/bin/sh", {"-c", command}, std::chrono::seconds(60));
  if (!exit.ok()) {
    captured.out = exit.status().to_string();
    return captured;
  }
  captured.exit_code = exit->exit_code;
  captured.out = exit->output;
  captured.err = read_file(err_path);
  return captured;
}

constexpr const char* kBackendLine =
    "gather writes: writev (io_uring disabled by SPILLWAY_DISABLE_IO_URING)";

class ClientLogging : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = BrokerProcess::start();
    ASSERT_TRUE(started.ok()) << started.status().to_string();
    broker_ = std::move(started).value();
  }

  Captured run_quiet_client(const std::string& topic, const std::string& mode,
                            bool disable_io_uring) {
    return run_capturing_stderr(QUIET_CLIENT_BINARY, {broker_->address(), topic, mode},
                                disable_io_uring);
  }

  std::unique_ptr<BrokerProcess> broker_;
};

TEST_F(ClientLogging, ALibraryUserSeesNothingOfTheLibraryByDefault) {
  const Captured run = run_quiet_client("quiet", "default", false);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out, "consumed 100\n");
  EXPECT_EQ(run.err, "");
}

TEST_F(ClientLogging, TheWritevFallbackIsNotPrintedByDefault) {
  const Captured run = run_quiet_client("fallback", "default", true);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out, "consumed 100\n");
  EXPECT_EQ(run.err, "");
}

TEST_F(ClientLogging, AHandlerTheApplicationSetsReceivesTheLines) {
  const Captured run = run_quiet_client("handled", "handler", true);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  // The backend is chosen once per process: exactly one line, to the handler.
  EXPECT_EQ(run.out, "consumed 100\nhandler info " + std::string(kBackendLine) + "\n");
  EXPECT_EQ(run.err, "");
}

TEST_F(ClientLogging, TheDefaultHandlerWritesToStderrAtTheLevelSet) {
  const Captured run = run_quiet_client("to_stderr", "info-to-stderr", true);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out, "consumed 100\n");
  EXPECT_EQ(run.err, "spillway: info: " + std::string(kBackendLine) + "\n");
}

TEST_F(ClientLogging, TheCliPrintsTransportNoticesOnlyWithVerbose) {
  const std::string address = broker_->address();
  Captured produce = run_capturing_stderr(
      cli_binary(), {"topic", "create", "cli", "--partitions", "1", "--broker", address}, true);
  ASSERT_EQ(produce.exit_code, 0) << produce.out << produce.err;
  EXPECT_EQ(produce.err.find("gather writes"), std::string::npos) << produce.err;

  const std::vector<std::string> consume = {"consume",       "cli",      "--from-beginning",
                                            "--exit-at-end", "--broker", address};
  const Captured quiet = run_capturing_stderr(cli_binary(), consume, true);
  EXPECT_EQ(quiet.exit_code, 0) << quiet.out << quiet.err;
  EXPECT_EQ(quiet.err.find("gather writes"), std::string::npos) << quiet.err;

  std::vector<std::string> verbose_consume = consume;
  verbose_consume.insert(verbose_consume.begin(), "-v");
  const Captured verbose = run_capturing_stderr(cli_binary(), verbose_consume, true);
  EXPECT_EQ(verbose.exit_code, 0) << verbose.out << verbose.err;
  EXPECT_NE(verbose.err.find("spillway: info: " + std::string(kBackendLine) + "\n"),
            std::string::npos)
      << verbose.err;
}

}  // namespace
}  // namespace spillway::testing
