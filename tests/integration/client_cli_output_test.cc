// The `spillway` CLI for scripts (issue 17), run as a script would run it
// against a real broker: --output json of consume, topic, group and ping
// (parsed back with nlohmann::json), consume --format byte for byte, binary
// values through produce --value-file and back, headers, null keys, the
// -p short flag, perf's --plot refusal, and the usage errors (exit 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "broker_process.h"
#include "spillway/common/scram.h"

namespace spillway::testing {
namespace {

using Json = nlohmann::json;

// One CLI run: stdout as it was written (a file, so binary output is exact
// and no stderr line is mixed in), and stdout + stderr as run_process saw
// them (here: only stderr).
struct CliRun {
  int exit_code = -1;
  std::string stdout_bytes;
  std::string stderr_text;
};

class ClientCliOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = BrokerProcess::start();
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(broker).value();
  }

  // Runs `spillway ARGS --broker ADDRESS` with stdout redirected to a file.
  CliRun cli(std::vector<std::string> args) {
    const std::string out = (dir_.path() / ("stdout" + std::to_string(files_++))).string();
    std::vector<std::string> shell = {"-c", "out=$1; shift; exec \"$@\" > \"$out\"", "sh", out,
                                      cli_binary()};
    shell.insert(shell.end(), args.begin(), args.end());
    shell.push_back("--broker");
    shell.push_back(broker_->address());
    Result<ProcessExit> r = run_process("/bin/sh", shell);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    CliRun run;
    if (!r.ok()) return run;
    run.exit_code = r->exit_code;
    run.stderr_text = r->output;
    std::ifstream in(out, std::ios::binary);
    run.stdout_bytes.assign(std::istreambuf_iterator<char>(in), {});
    return run;
  }

  std::string write_file(const std::string& bytes) {
    const std::string path = (dir_.path() / ("input" + std::to_string(files_++))).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  std::unique_ptr<BrokerProcess> broker_;
  TempDir dir_;
  int files_ = 0;
};

// Every line of `text` parsed as JSON (a line that does not parse fails the
// test through the exception).
std::vector<Json> json_lines(const std::string& text) {
  std::vector<Json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_F(ClientCliOutput, ConsumePrintsOneJsonObjectPerRecord) {
  ASSERT_EQ(cli({"topic", "create", "orders"}).exit_code, 0);
  CliRun r = cli({"produce", "orders", "--file", write_file("alice:order-1\nbob:tab\there\n"),
                  "--key-separator", ":", "-H", "trace=42", "-H", "origin=eu"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  r = cli({"consume", "orders", "--from-beginning", "--exit-at-end", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::vector<Json> records = json_lines(r.stdout_bytes);
  ASSERT_EQ(records.size(), 2u) << r.stdout_bytes;
  EXPECT_EQ(records[0]["topic"], "orders");
  EXPECT_EQ(records[0]["partition"], 0);
  EXPECT_EQ(records[0]["offset"], 0);
  EXPECT_TRUE(records[0]["timestamp"].is_number_integer());
  EXPECT_GT(records[0]["timestamp"].get<int64_t>(), 1'700'000'000'000);  // 2023 on: ms, not s
  EXPECT_EQ(records[0]["key"], "alice");
  EXPECT_EQ(records[0]["value"], "order-1");
  EXPECT_EQ(records[0]["headers"],
            Json::parse(R"([{"key":"trace","value":"42"},{"key":"origin","value":"eu"}])"));
  EXPECT_EQ(records[1]["offset"], 1);
  EXPECT_EQ(records[1]["value"], "tab\there");
  EXPECT_TRUE(contains(r.stdout_bytes, "\"tab\\there\"")) << r.stdout_bytes;
}

TEST_F(ClientCliOutput, ConsumeFormatIsExactAndNullKeysAreNull) {
  ASSERT_EQ(cli({"topic", "create", "f"}).exit_code, 0);
  ASSERT_EQ(cli({"produce", "f", "--file", write_file("k1=v1\nk2=v2\n"), "-k", "=", "-H", "h=x"})
                .exit_code,
            0);
  ASSERT_EQ(cli({"produce", "f", "--file", write_file("keyless\n"), "--null-key"}).exit_code, 0);
  CliRun r = cli({"consume", "f", "--from-beginning", "--exit-at-end", "--format",
                  "%t|%p|%o|%k|%s|%h|%K|%S|100%%\\n"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_bytes,
            "f|0|0|k1|v1|h=x|2|2|100%\n"
            "f|0|1|k2|v2|h=x|2|2|100%\n"
            "f|0|2||keyless||-1|7|100%\n");
  r = cli({"consume", "f", "--offset", "2", "--count", "1", "--output", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::vector<Json> records = json_lines(r.stdout_bytes);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_TRUE(records[0]["key"].is_null()) << r.stdout_bytes;
  EXPECT_EQ(records[0]["headers"], Json::array());
}

// A Kafka tombstone (a null value, here from kcat -Z through the Kafka
// listener) reads back as "value":null, and its lengths as -1; the empty
// value beside it stays "".
TEST_F(ClientCliOutput, ATombstoneIsANullValue) {
  ASSERT_EQ(cli({"topic", "create", "compacted"}).exit_code, 0);
  const std::string input = write_file("gone:\nkept:\n");
  Result<ProcessExit> kcat =
      run_process("/bin/sh", {"-c",
                              "head -n 1 \"$1\" | timeout 60 kcat -b \"$0\" -P -t compacted -K: -Z "
                              "&& tail -n 1 \"$1\" | timeout 60 kcat -b \"$0\" -P -t compacted -K:",
                              broker_->kafka_address(), input});
  ASSERT_TRUE(kcat.ok()) << kcat.status().to_string();
  ASSERT_EQ(kcat->exit_code, 0) << kcat->output;
  CliRun r = cli({"consume", "compacted", "--from-beginning", "--exit-at-end", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::vector<Json> records = json_lines(r.stdout_bytes);
  ASSERT_EQ(records.size(), 2u) << r.stdout_bytes;
  EXPECT_EQ(records[0]["key"], "gone");
  EXPECT_TRUE(records[0]["value"].is_null()) << r.stdout_bytes;
  EXPECT_EQ(records[1]["key"], "kept");
  EXPECT_EQ(records[1]["value"], "") << r.stdout_bytes;
  r = cli({"consume", "compacted", "--from-beginning", "--exit-at-end", "--format", "%k %K %S\\n"});
  EXPECT_EQ(r.stdout_bytes, "gone 4 -1\nkept 4 0\n") << r.stderr_text;
}

TEST_F(ClientCliOutput, BinaryValueRoundTripsThroughValueFile) {
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes += static_cast<char>(b);
  ASSERT_EQ(cli({"topic", "create", "bin"}).exit_code, 0);
  CliRun r = cli({"produce", "bin", "--value-file", write_file(bytes), "--key", "blob", "-H",
                  "type=application/octet-stream"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "produced 1 message (256 bytes) to bin")) << r.stderr_text;

  r = cli({"consume", "bin", "--from-beginning", "--exit-at-end", "--format", "%s"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_bytes, bytes);

  r = cli({"consume", "bin", "--from-beginning", "--exit-at-end", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::vector<Json> records = json_lines(r.stdout_bytes);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["key"], "blob");
  EXPECT_FALSE(records[0].contains("key_encoding"));
  EXPECT_EQ(records[0]["value_encoding"], "base64");
  EXPECT_EQ(scram::base64_decode(records[0]["value"].get<std::string>()), bytes);
  EXPECT_EQ(records[0]["headers"][0]["value"], "application/octet-stream");

  // An empty file is an empty value, not a null one.
  ASSERT_EQ(cli({"produce", "bin", "--value-file", write_file("")}).exit_code, 0);
  r = cli({"consume", "bin", "--offset", "1", "--count", "1", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(json_lines(r.stdout_bytes).at(0)["value"], "");
}

TEST_F(ClientCliOutput, AValueFileTooLargeIsRefusedBeforeItIsSent) {
  ASSERT_EQ(cli({"topic", "create", "big"}).exit_code, 0);
  const std::string path = (dir_.path() / "big").string();
  {
    std::ofstream(path, std::ios::binary) << std::string(1 << 20, 'x');  // 1 MiB > 1 MiB - 256
  }
  CliRun r = cli({"produce", "big", "--value-file", path});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "1048576 bytes, more than a record may carry"))
      << r.stderr_text;
  r = cli({"consume", "big", "--from-beginning", "--exit-at-end"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_bytes, "");
}

TEST_F(ClientCliOutput, TopicListAndDescribeInJsonAndHumanUnits) {
  ASSERT_EQ(cli({"topic", "create", "kept", "--partitions", "2", "--retention-ms", "604800000",
                 "--retention-bytes", "1073741824"})
                .exit_code,
            0);
  ASSERT_EQ(cli({"topic", "create", "forever", "--retention-ms", "-1", "--retention-bytes", "-1"})
                .exit_code,
            0);
  ASSERT_EQ(cli({"produce", "kept", "-p", "0", "--file", write_file(std::string(1000, 'x') + "\n")})
                .exit_code,
            0);
  CliRun r = cli({"topic", "describe", "kept"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  // Partition sizes on disk (Metadata v1): the 1000-byte record and its
  // batch framing in partition 0, nothing in partition 1.
  EXPECT_TRUE(
      std::regex_search(r.stdout_bytes, std::regex("partition 0: log start 0, high watermark 1, "
                                                   "1\\.[0-9] KiB on disk\n")))
      << r.stdout_bytes;
  EXPECT_TRUE(contains(r.stdout_bytes, "partition 1: log start 0, high watermark 0, 0 B on disk\n"))
      << r.stdout_bytes;
  EXPECT_TRUE(contains(r.stdout_bytes, "topic kept: 2 partitions, flush ")) << r.stdout_bytes;
  EXPECT_TRUE(contains(r.stdout_bytes, ", retention 1 GiB by size, 7d by age\n")) << r.stdout_bytes;
  r = cli({"topic", "describe", "forever"});
  EXPECT_TRUE(contains(r.stdout_bytes, "retention unlimited by size, unlimited by age"))
      << r.stdout_bytes;

  r = cli({"topic", "describe", "kept", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const Json topic = Json::parse(r.stdout_bytes);
  EXPECT_EQ(topic["name"], "kept");
  EXPECT_EQ(topic["retention_ms"], 604'800'000);
  EXPECT_EQ(topic["retention_bytes"], 1'073'741'824);
  ASSERT_EQ(topic["partitions"].size(), 2u);
  EXPECT_EQ(topic["partitions"][1]["partition"], 1);
  EXPECT_EQ(topic["partitions"][1]["high_watermark"], 0);
  EXPECT_EQ(topic["partitions"][1]["size_bytes"], 0);
  EXPECT_GT(topic["partitions"][0]["size_bytes"].get<int64_t>(), 1000);
  EXPECT_LT(topic["partitions"][0]["size_bytes"].get<int64_t>(), 1200);
  EXPECT_TRUE(topic["partitions"][1]["error"].is_null());

  r = cli({"topic", "list", "--output", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(Json::parse(r.stdout_bytes),
            Json::parse(R"([{"name":"forever","partitions":1},{"name":"kept","partitions":2}])"));
}

TEST_F(ClientCliOutput, GroupListAndDescribeAndPingInJson) {
  ASSERT_EQ(cli({"topic", "create", "g"}).exit_code, 0);
  ASSERT_EQ(cli({"produce", "g", "--file", write_file("a\nb\nc\n")}).exit_code, 0);
  ASSERT_EQ(cli({"consume", "g", "--group", "readers", "--count", "2"}).exit_code, 0);

  CliRun r = cli({"group", "list", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const Json groups = Json::parse(r.stdout_bytes);
  ASSERT_TRUE(groups.is_array()) << r.stdout_bytes;
  ASSERT_EQ(groups.size(), 1u) << r.stdout_bytes;
  EXPECT_EQ(groups[0]["group"], "readers");

  r = cli({"group", "describe", "readers", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const Json group = Json::parse(r.stdout_bytes);
  EXPECT_EQ(group["group"], "readers");
  EXPECT_EQ(group["members"], Json::array());  // it left when it stopped
  ASSERT_EQ(group["partitions"].size(), 1u) << r.stdout_bytes;
  EXPECT_EQ(group["partitions"][0]["topic"], "g");
  EXPECT_EQ(group["partitions"][0]["committed"], 2);
  EXPECT_EQ(group["partitions"][0]["log_end_offset"], 3);
  EXPECT_EQ(group["partitions"][0]["lag"], 1);
  EXPECT_TRUE(group["partitions"][0]["member_id"].is_null());

  r = cli({"ping", "-o", "json", "--count", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const Json ping = Json::parse(r.stdout_bytes);
  EXPECT_EQ(ping["broker"], broker_->address());
  EXPECT_EQ(ping["round_trips_ms"].size(), 2u);
  bool serves_metadata = false;
  for (const Json& api : ping["apis"]) serves_metadata |= api["name"] == "Metadata";
  EXPECT_TRUE(serves_metadata) << r.stdout_bytes;
}

// -p is a partition in every subcommand: perf's producer count is
// --producers only, so `perf produce -p 2` is a usage error.
TEST_F(ClientCliOutput, ShortPIsAPartitionEverywhere) {
  ASSERT_EQ(cli({"topic", "create", "parts", "--partitions", "2"}).exit_code, 0);
  ASSERT_EQ(cli({"produce", "parts", "-p", "1", "--file", write_file("one\n")}).exit_code, 0);
  CliRun r = cli({"consume", "parts", "-p", "1", "--from-beginning", "--exit-at-end"});
  EXPECT_EQ(r.stdout_bytes, "one\n") << r.stderr_text;
  r = cli({"perf", "produce", "-t", "parts", "-p", "2", "-n", "10"});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  r = cli({"perf", "produce", "-t", "parts", "--producers", "2", "-n", "10", "-o", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(Json::parse(r.stdout_bytes)["producers"], 2) << r.stdout_bytes;
}

// perf consume measures no latency: its report has none and --plot is a
// usage error; bytes are those read.
TEST_F(ClientCliOutput, PerfConsumeHasNoLatencyToReportOrPlot) {
  ASSERT_EQ(cli({"topic", "create", "pc"}).exit_code, 0);
  ASSERT_EQ(cli({"produce", "pc", "--file", write_file("abc\ndefgh\n")}).exit_code, 0);
  CliRun r = cli({"perf", "consume", "-t", "pc", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const Json report = Json::parse(r.stdout_bytes);
  EXPECT_EQ(report["messages"], 2);
  EXPECT_EQ(report["bytes"], 8);
  EXPECT_FALSE(report.contains("latency_us")) << r.stdout_bytes;
  r = cli({"perf", "consume", "-t", "pc"});
  EXPECT_FALSE(contains(r.stdout_bytes, "latency")) << r.stdout_bytes;

  const std::string plot = (dir_.path() / "latency.svg").string();
  r = cli({"perf", "consume", "-t", "pc", "--plot", plot});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "nothing to plot")) << r.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(plot));
}

TEST_F(ClientCliOutput, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> usage_errors = {
      {"consume", "t", "--format", "%x"},
      {"consume", "t", "--format", "%s\\"},
      {"consume", "t", "--format", "%s", "-o", "json"},
      {"consume", "t", "--format", "%s", "--print-key"},
      {"consume", "t", "-o", "json", "--print-key"},
      {"consume", "t", "-o", "yaml"},
      {"topic", "list", "-o", "xml"},
      {"produce", "t", "-H", "novalue"},
      {"produce", "t", "-H", "=value"},
      {"produce", "t", "--value-file", "x", "--file", "y"},
      {"produce", "t", "--null-key", "--key", "k"},
  };
  for (const std::vector<std::string>& args : usage_errors) {
    const CliRun r = cli(args);
    std::string command;
    for (const std::string& a : args) command += a + " ";
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.stderr_text;
    EXPECT_FALSE(r.stderr_text.empty()) << command;
  }
  EXPECT_TRUE(contains(cli({"consume", "t", "--format", "%x"}).stderr_text, "%x"));
}

}  // namespace
}  // namespace spillway::testing
