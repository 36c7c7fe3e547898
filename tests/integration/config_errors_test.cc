// The real binary refuses a bad config before it listens: non-zero exit, and
// a message naming the file, the line and what was expected.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "broker_process.h"

namespace spillway::testing {
namespace {

// Writes `text` to DIR/broker.toml and runs the broker with it.
Result<ProcessExit> run_with_config(const TempDir& dir, const std::string& text,
                                    std::vector<std::string> extra = {}) {
  const auto path = dir.path() / "broker.toml";
  std::ofstream(path) << text;
  std::vector<std::string> args = {
      "--config",       path.string(), "--listen",   "127.0.0.1:0",
      "--kafka-listen", "127.0.0.1:0", "--data-dir", (dir.path() / "data").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_process(broker_binary(), args);
}

TEST(ConfigErrors, UnknownKeyNamesFileAndLine) {
  TempDir dir;
  Result<ProcessExit> exit = run_with_config(dir,
                                             "[broker]\n"
                                             "threads = 1\n"
                                             "\n"
                                             "[limits]\n"
                                             "max_frame_byts = 4096\n");
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->exit_code, 2) << exit->output;
  EXPECT_NE(exit->output.find((dir.path() / "broker.toml").string() + ":5:"), std::string::npos)
      << exit->output;
  EXPECT_NE(exit->output.find("unknown key 'max_frame_byts'"), std::string::npos) << exit->output;
  EXPECT_NE(exit->output.find("max_frame_bytes"), std::string::npos) << exit->output;
  EXPECT_EQ(exit->output.find("listening on"), std::string::npos) << exit->output;
}

TEST(ConfigErrors, OutOfRangeValueNamesLineAndExpectedRange) {
  TempDir dir;
  Result<ProcessExit> exit = run_with_config(dir,
                                             "# comment\n"
                                             "[limits]\n"
                                             "max_frame_bytes = 12\n");
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->exit_code, 2) << exit->output;
  EXPECT_NE(exit->output.find("broker.toml:3:"), std::string::npos) << exit->output;
  EXPECT_NE(exit->output.find("expected an integer in [1024, 1073741824]"), std::string::npos)
      << exit->output;
  EXPECT_NE(exit->output.find("got 12"), std::string::npos) << exit->output;
  EXPECT_EQ(exit->output.find("listening on"), std::string::npos) << exit->output;
}

TEST(ConfigErrors, WrongTypeNamesLineAndExpectedType) {
  TempDir dir;
  Result<ProcessExit> exit = run_with_config(dir,
                                             "[log]\n"
                                             "level = \"info\"\n"
                                             "[broker]\n"
                                             "threads = \"many\"\n");
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->exit_code, 2) << exit->output;
  EXPECT_NE(exit->output.find("broker.toml:4:"), std::string::npos) << exit->output;
  EXPECT_NE(exit->output.find("got a string"), std::string::npos) << exit->output;
}

TEST(ConfigErrors, BadFlagValueIsRefused) {
  TempDir dir;
  Result<ProcessExit> exit = run_with_config(dir, "", {"--log-level", "loud"});
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->exit_code, 2) << exit->output;
  EXPECT_NE(exit->output.find("--log-level"), std::string::npos) << exit->output;
  EXPECT_NE(exit->output.find("\"loud\""), std::string::npos) << exit->output;
}

TEST(ConfigErrors, ADirectoryIsNotAConfigFile) {
  TempDir dir;
  Result<ProcessExit> exit =
      run_process(broker_binary(),
                  {"--config", dir.path().string(), "--listen", "127.0.0.1:0", "--kafka-listen",
                   "127.0.0.1:0", "--data-dir", (dir.path() / "data").string()});
  ASSERT_TRUE(exit.ok()) << exit.status().to_string();
  EXPECT_EQ(exit->exit_code, 2) << exit->output;
  EXPECT_NE(exit->output.find(dir.path().string() + ": is a directory, not a config file"),
            std::string::npos)
      << exit->output;
  EXPECT_EQ(exit->output.find("listening on"), std::string::npos) << exit->output;
}

TEST(ConfigErrors, UsageErrorsExitTwoAndHelpExitsZero) {
  TempDir dir;
  const std::string data = (dir.path() / "data").string();
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    const char* says;
  };
  const Case cases[] = {
      {{"--no-such-flag"}, 2, "--no-such-flag"},
      {{"--listen", "127.0.0.1:0", "extra-positional"}, 2, "extra-positional"},
      {{"--threads"}, 2, "--threads"},  // a flag without its value
      {{"--help"}, 0, "--max-frame-bytes"},
      {{"--version"}, 0, "spillway-broker"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--data-dir", data});
    if (c.args.back() == "--threads") args = c.args;  // the value must be missing
    Result<ProcessExit> exit = run_process(broker_binary(), args);
    ASSERT_TRUE(exit.ok()) << exit.status().to_string();
    EXPECT_EQ(exit->exit_code, c.exit_code) << c.args[0] << "\n" << exit->output;
    EXPECT_NE(exit->output.find(c.says), std::string::npos) << c.args[0] << "\n" << exit->output;
    EXPECT_EQ(exit->output.find("listening on"), std::string::npos) << exit->output;
  }
}

TEST(ConfigErrors, ShippedConfigStartsTheBroker) {
  // config/broker.toml as shipped, with the ports and data dir redirected
  // (the file serves /metrics on 127.0.0.1:9644; a free port here).
  TempDir dir;
  auto broker = BrokerProcess::start(
      {.args = {"--config", SPILLWAY_SOURCE_DIR "/config/broker.toml", "--listen", "127.0.0.1:0",
                "--data-dir", (dir.path() / "data").string(), "--metrics-listen", "127.0.0.1:0"},
       .default_listen = false,
       .default_data_dir = false});
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  EXPECT_NE((*broker)->log().find("config/broker.toml"), std::string::npos);
  EXPECT_NE((*broker)->log().find("metrics on 127.0.0.1:"), std::string::npos);
  Result<ProcessExit> exit = (*broker)->stop(SIGTERM);
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->exit_code, 0) << exit->output;
}

}  // namespace
}  // namespace spillway::testing
