// Test support for the CLI shell tests (shell_tools.h).
#include "shell_tools.h"

#include <gtest/gtest.h>

namespace spillway::testing {

namespace {

ProcessExit run(const std::string& binary, const std::vector<std::string>& args) {
  Result<ProcessExit> r = run_process(binary, args);
  EXPECT_TRUE(r.ok()) << binary << ": " << r.status().to_string();
  return r.ok() ? *r : ProcessExit{};
}

}  // namespace

ProcessExit run_cli(const std::vector<std::string>& args) {
  return run(cli_binary(), args);
}

ProcessExit run_bash(const std::string& script) {
  return run("bash", {"-c", script});
}

ProcessExit run_zsh(const std::string& script) {
  return run("zsh", {"-f", "-c", script});
}

std::string share_file(const std::string& relative) {
  return std::string(SPILLWAY_SHARE_DIR) + "/" + relative;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace spillway::testing
