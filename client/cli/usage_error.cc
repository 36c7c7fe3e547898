// Parse errors of `spillway` (usage_error.h).
#include "usage_error.h"

#include <cstdio>
#include <string>
#include <vector>

#include "app_tree/did_you_mean.h"
#include "exit_status.h"

namespace spillway::cli {

int report_parse_error(const CLI::App& app, const CLI::ParseError& error, int argc, char** argv) {
  if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
    app.exit(error);  // prints the help or version text
    return kExitSuccess;
  }
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (std::optional<UnknownWord> unknown = find_unknown_word(app, args)) {
    std::fprintf(stderr, "%s: %s\nRun '%s --help' for more information.\n", app.get_name().c_str(),
                 describe_unknown_word(*unknown).c_str(), unknown->command.c_str());
    return kExitUsage;
  }
  app.exit(error);
  return kExitUsage;
}

}  // namespace spillway::cli
