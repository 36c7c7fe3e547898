// "Did you mean" for misspelt subcommands and flags: the suggestion names
// the command the word was typed under, and the exit status is 2.
#include <gtest/gtest.h>

#include "shell_tools.h"

namespace spillway::testing {
namespace {

void expect_usage_error(const std::vector<std::string>& args, const std::string& message) {
  const ProcessExit r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, message)) << r.output;
}

TEST(CliDidYouMean, MisspeltSubcommand) {
  expect_usage_error({"pnig"},
                     "spillway: unknown subcommand 'pnig' for 'spillway'; "
                     "did you mean 'ping'?\nRun 'spillway --help' for more information.");
  expect_usage_error({"topic", "lst"},
                     "unknown subcommand 'lst' for 'spillway topic'; did you mean 'list'?\n"
                     "Run 'spillway topic --help'");
  expect_usage_error({"group", "describ", "g"},
                     "unknown subcommand 'describ' for 'spillway group'; did you mean 'describe'?");
}

TEST(CliDidYouMean, MisspeltFlagAtTheLevelWhereItWasTyped) {
  expect_usage_error({"topic", "describe", "orders", "--brokr", "127.0.0.1:1"},
                     "unknown flag '--brokr' for 'spillway topic describe'; "
                     "did you mean '--broker'?");
  expect_usage_error({"consume", "t", "--from-begining"},
                     "unknown flag '--from-begining' for 'spillway consume'; "
                     "did you mean '--from-beginning'?");
  // Option values are skipped on the way (--acks takes "leader"), and
  // --flag=value is one word.
  expect_usage_error({"produce", "t", "--acks", "leader", "--key-separator=:", "--lingr-ms", "5"},
                     "unknown flag '--lingr-ms' for 'spillway produce'; did you mean "
                     "'--linger-ms'?");
}

TEST(CliDidYouMean, SeveralEquallyCloseNames) {
  // "--to-" is far from every flag but begins all four targets of
  // reset-offsets (flags of an option group count as the command's).
  expect_usage_error({"group", "reset-offsets", "g", "--topic", "t", "--to-"},
                     "did you mean '--to-earliest', '--to-latest', '--to-offset' or "
                     "'--to-datetime'?");
}

TEST(CliDidYouMean, UnknownWordWithNothingClose) {
  const ProcessExit r = run_cli({"xyzzy"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "unknown subcommand 'xyzzy' for 'spillway'\n")) << r.output;
  EXPECT_FALSE(contains(r.output, "did you mean")) << r.output;
}

TEST(CliDidYouMean, OtherUsageErrorsKeepTheirOwnMessage) {
  // Every word is known: the error is the value, and no guess is made.
  const ProcessExit r = run_cli({"consume", "pnig", "--count", "-1"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--count")) << r.output;
  EXPECT_FALSE(contains(r.output, "did you mean")) << r.output;
}

}  // namespace
}  // namespace spillway::testing
