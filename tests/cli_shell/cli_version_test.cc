// `spillway version`: the version, the git commit the binary was built from
// and its build type; and the hidden __generate command's own usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "shell_tools.h"

namespace spillway::testing {
namespace {

TEST(CliVersion, PrintsVersionCommitAndBuildType) {
  const ProcessExit r = run_cli({"version"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<std::string> lines = lines_of(r.output);
  ASSERT_EQ(lines.size(), 3u) << r.output;
  EXPECT_EQ(lines[0], "spillway " SPILLWAY_VERSION);
  // The tests are built from the same checkout as the binary.
  if (std::filesystem::exists(SPILLWAY_SOURCE_DIR "/.git")) {
    EXPECT_TRUE(std::regex_match(lines[1], std::regex("commit [0-9a-f]{12}(-dirty)?"))) << lines[1];
  } else {
    EXPECT_EQ(lines[1], "commit unknown (not built from a git clone)");
  }
  const std::string build_type = SPILLWAY_BUILD_TYPE;
  EXPECT_EQ(lines[2], "build type " + (build_type.empty() ? "unspecified" : build_type));

  const ProcessExit flag = run_cli({"--version"});
  EXPECT_EQ(flag.exit_code, 0) << flag.output;
  EXPECT_EQ(flag.output, "spillway " SPILLWAY_VERSION "\n");
}

TEST(CliGenerate, RefusesAnUnknownKind) {
  const ProcessExit r = run_cli({"__generate", "completion-fish"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "unknown kind 'completion-fish'")) << r.output;
  EXPECT_EQ(run_cli({"__generate"}).exit_code, 2);
}

TEST(CliGenerate, IsInNoHelpText) {
  const ProcessExit r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "__generate")) << r.output;
  EXPECT_TRUE(contains(r.output, "version")) << r.output;
}

}  // namespace
}  // namespace spillway::testing
