// `spillway version` (version_command.h).
#include "version_command.h"

#include <cstdio>

#include "build_info.h"

namespace spillway::cli {

void add_version_command(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "version", "Print the version, the git commit and the build type of this binary");
  cmd->callback([exit_code] {
    const BuildInfo& info = build_info();
    std::printf("spillway %s\n", info.version);
    std::printf("commit %s\n", *info.commit ? info.commit : "unknown (not built from a git clone)");
    std::printf("build type %s\n", *info.build_type ? info.build_type : "unspecified");
    *exit_code = 0;
  });
}

}  // namespace spillway::cli
