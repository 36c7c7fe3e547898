// `spillway version`: the version, the git commit and the build type of this
// binary (build_info.h), one "name value" line each, besides the --version
// flag's single line.
#pragma once

#include <CLI/CLI.hpp>

namespace spillway::cli {

// Registers the subcommand on `app`; its callback prints to stdout and
// leaves *exit_code at 0.
void add_version_command(CLI::App& app, int* exit_code);

}  // namespace spillway::cli
