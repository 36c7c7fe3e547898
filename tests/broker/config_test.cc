// Broker settings: the key table, the TOML reader (errors name file, line and
// what was expected), command-line overrides and address parsing.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <set>

#include "config/command_line.h"
#include "config/config_file.h"
#include "config/config_keys.h"
#include "config/listen_address.h"

namespace spillway::broker {
namespace {

Status apply(std::string_view text, BrokerConfig& config) {
  return apply_config_text(text, "test.toml", config);
}

TEST(ConfigKeys, NamesAndFlagsAreUniqueAndFlagsAreDashed) {
  std::set<std::string> names, flags;
  for (const ConfigKey& key : config_keys()) {
    EXPECT_TRUE(names.insert(std::string(key.section) + "." + std::string(key.name)).second);
    EXPECT_TRUE(flags.insert(std::string(key.flag)).second) << key.flag;
    EXPECT_EQ(std::string(key.flag).find('_'), std::string::npos) << key.flag;
    EXPECT_FALSE(key.help.empty()) << key.name;
  }
}

TEST(ConfigKeys, DefaultsAreValidValues) {
  // Setting every key to its own default must succeed: the defaults in
  // BrokerConfig and the table's ranges agree.
  const BrokerConfig defaults;
  for (const ConfigKey& key : config_keys()) {
    BrokerConfig config;
    std::string text = format_value(key, defaults);
    if (text.size() >= 2 && text.front() == '"') text = text.substr(1, text.size() - 2);
    EXPECT_TRUE(set_from_text(key, text, config).ok()) << key.name << " = " << text;
  }
}

TEST(ConfigKeys, ShippedConfigFileSetsEveryKeyToItsDefault) {
  BrokerConfig config;
  config.threads = 77;  // overwritten by the file if it sets the key
  ASSERT_TRUE(apply_config_file(SPILLWAY_SOURCE_DIR "/config/broker.toml", config).ok());
  // The one exception: /metrics is off unless configured (brokers started
  // without a file must not contend for one port), and the shipped file
  // turns it on, on loopback (docs/operations.md).
  EXPECT_EQ(config.metrics_listen, "127.0.0.1:9644");
  config.metrics_listen.clear();
  const BrokerConfig defaults;
  EXPECT_EQ(defaults.metrics_listen, "");
  for (const ConfigKey& key : config_keys()) {
    EXPECT_EQ(format_value(key, config), format_value(key, defaults)) << key.name;
  }
  // And the file mentions every key's flag in its comments.
  std::ifstream in(SPILLWAY_SOURCE_DIR "/config/broker.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const ConfigKey& key : config_keys()) {
    EXPECT_NE(text.find("--" + std::string(key.flag)), std::string::npos) << key.flag;
  }
}

TEST(ConfigFile, ValuesOfEveryTypeAreApplied) {
  BrokerConfig config;
  ASSERT_TRUE(apply(R"(
[broker]
listen = "0.0.0.0:1234"
threads = 3
[log]
level = "debug"
[topics]
auto_create = true
flush_policy = "durable"
retention_bytes = -1
[metrics]
listen = "[::1]:9644"
)",
                    config)
                  .ok());
  EXPECT_EQ(config.listen, "0.0.0.0:1234");
  EXPECT_EQ(config.threads, 3);
  EXPECT_EQ(config.log_level, "debug");
  EXPECT_TRUE(config.auto_create_topics);
  EXPECT_EQ(config.flush_policy, "durable");
  EXPECT_EQ(config.metrics_listen, "[::1]:9644");
}

TEST(ConfigFile, UnknownKeyNamesLineAndKnownKeys) {
  BrokerConfig config;
  Status st = apply("[broker]\nthreads = 2\nthread = 3\n", config);
  EXPECT_EQ(st.code(), ErrorCode::kConfig);
  EXPECT_EQ(st.message().substr(0, 13), "test.toml:3:1");
  EXPECT_NE(st.message().find("unknown key 'thread' in [broker]"), std::string::npos);
  EXPECT_NE(st.message().find("threads"), std::string::npos);
}

TEST(ConfigFile, UnknownTableAndTopLevelKeyAreRejected) {
  BrokerConfig config;
  Status st = apply("\n[storage]\nx = 1\n", config);
  EXPECT_NE(st.message().find("test.toml:2:"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("unknown key 'storage'"), std::string::npos) << st.message();

  st = apply("log_level = \"info\"\n", config);
  EXPECT_NE(st.message().find("test.toml:1:"), std::string::npos) << st.message();
  st = apply("level = \"info\"\n", config);
  EXPECT_NE(st.message().find("did you mean 'level' in [log]?"), std::string::npos) << st.message();
}

TEST(ConfigFile, WrongTypesNameTheExpectedType) {
  struct Case {
    const char* text;
    const char* expected;
  } cases[] = {
      {"[broker]\nthreads = 1.5\n", "got a floating-point number"},
      {"[broker]\nthreads = true\n", "got a boolean"},
      {"[broker]\nlisten = 9092\n", "got an integer"},
      {"[topics]\nauto_create = \"yes\"\n", "got a string"},
      {"[limits]\nmax_connections = [1, 2]\n", "got an array"},
      {"[log]\nlevel = { a = 1 }\n", "got a table"},
  };
  for (const Case& c : cases) {
    BrokerConfig config;
    Status st = apply(c.text, config);
    EXPECT_EQ(st.code(), ErrorCode::kConfig) << c.text;
    EXPECT_NE(st.message().find("test.toml:2:"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(c.expected), std::string::npos) << st.message();
  }
}

TEST(ConfigFile, OutOfRangeAndInvalidValuesAreRejectedAtTheirLine) {
  const char* cases[] = {
      "[broker]\nthreads = 1025\n",
      "[broker]\nthreads = -1\n",
      "[limits]\nmax_frame_bytes = 1023\n",
      "[limits]\nmax_in_flight_per_connection = 0\n",
      "[topics]\nflush_policy = \"sometimes\"\n",
      "[topics]\nretention_ms = -2\n",
      "[broker]\nlisten = \"localhost:9092\"\n",
      "[broker]\nlisten = \"127.0.0.1:65536\"\n",
      "[broker]\nlisten = \"127.0.0.1\"\n",
      "[broker]\ndata_dir = \"\"\n",
      "[log]\nlevel = \"verbose\"\n",
      "[metrics]\nlisten = \"nope\"\n",
  };
  for (const char* text : cases) {
    BrokerConfig config;
    const BrokerConfig before = config;
    Status st = apply(text, config);
    EXPECT_EQ(st.code(), ErrorCode::kConfig) << text;
    EXPECT_NE(st.message().find("test.toml:2:"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("expected"), std::string::npos) << st.message();
    EXPECT_EQ(config.listen, before.listen);
    EXPECT_EQ(config.threads, before.threads);
  }
}

TEST(ConfigFile, RangeBoundsAreInclusive) {
  BrokerConfig config;
  EXPECT_TRUE(apply("[broker]\nthreads = 1024\n[limits]\nmax_frame_bytes = 1024\n", config).ok());
  EXPECT_EQ(config.threads, 1024);
  EXPECT_EQ(config.max_frame_bytes, 1024);
}

TEST(ConfigFile, SyntaxErrorsNameTheLine) {
  BrokerConfig config;
  Status st = apply("[broker]\nthreads = = 2\n", config);
  EXPECT_EQ(st.code(), ErrorCode::kConfig);
  EXPECT_NE(st.message().find("test.toml:2:"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("not valid TOML"), std::string::npos) << st.message();
}

TEST(ConfigFile, MissingFileIsAnError) {
  BrokerConfig config;
  Status st = apply_config_file("/nonexistent/broker.toml", config);
  EXPECT_EQ(st.code(), ErrorCode::kConfig);
  EXPECT_NE(st.message().find("/nonexistent/broker.toml"), std::string::npos);
}

// Parses `args` (without argv[0]) with the broker's command line.
Result<BrokerConfig> parse_command_line(std::vector<std::string> args) {
  CLI::App app;
  ConfigCommandLine command_line(app);
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return Status(ErrorCode::kInvalidArgument, e.what());
  }
  return command_line.resolve();
}

TEST(CommandLine, FlagsOverrideTheFileAndTheLastFlagWins) {
  const std::string path = ::testing::TempDir() + "/cmdline_test.toml";
  std::ofstream(path) << "[broker]\nthreads = 2\ndata_dir = \"/from/file\"\n";
  Result<BrokerConfig> config =
      parse_command_line({"--config", path, "--threads", "5", "--max-frame-bytes", "4096",
                          "--threads", "6", "--auto-create-topics", "true"});
  ASSERT_TRUE(config.ok()) << config.status().to_string();
  EXPECT_EQ(config->threads, 6);
  EXPECT_EQ(config->data_dir, "/from/file");
  EXPECT_EQ(config->max_frame_bytes, 4096);
  EXPECT_TRUE(config->auto_create_topics);
  EXPECT_EQ(config->config_file, path);
}

TEST(CommandLine, NoConfigMeansDefaults) {
  Result<BrokerConfig> config = parse_command_line({});
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->listen, BrokerConfig().listen);
  EXPECT_TRUE(config->config_file.empty());
}

TEST(CommandLine, BadFlagValuesNameTheFlag) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"--threads", "two"},
           {"--threads", "12x"},
           {"--threads", "-1"},
           {"--auto-create-topics", "yes"},
           {"--listen", "9092"},
       }) {
    Result<BrokerConfig> config = parse_command_line(args);
    ASSERT_FALSE(config.ok()) << args[0] << " " << args[1];
    EXPECT_EQ(config.status().code(), ErrorCode::kConfig);
    EXPECT_EQ(config.status().message().substr(0, args[0].size() + 1), args[0] + ":");
  }
}

TEST(HostPort, ParsesIpv4AndBracketedIpv6) {
  Result<HostPort> v4 = parse_host_port("10.1.2.3:0");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->host, "10.1.2.3");
  EXPECT_EQ(v4->port, 0);
  Result<HostPort> v6 = parse_host_port("[::1]:65535");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 65535);
  for (const char* bad : {"", ":", "1.2.3.4", "1.2.3.4:", "1.2.3.4:x", "1.2.3.4:-1",
                          "1.2.3.4:70000", "::1:9092", "host:9092", "[::1]9092"}) {
    EXPECT_EQ(parse_host_port(bad).status().code(), ErrorCode::kConfig) << bad;
  }
}

}  // namespace
}  // namespace spillway::broker
