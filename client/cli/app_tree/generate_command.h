// `PROGRAM __generate completion-bash|completion-zsh|man [FILE]`: a hidden
// command of both binaries that writes one of the artifacts generated from
// its command tree, to FILE or stdout. The build runs it (client/ and
// broker/CMakeLists.txt) so the installed completions and man pages come
// from the binary they describe. It is not a CLI11 subcommand, so it is in
// no help text, completion or man page.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

#include "app_tree/man_page.h"

namespace spillway::cli {

// Nothing unless argv[1] is "__generate"; then writes the artifact and
// returns the exit status: 0 written, 1 FILE could not be written, 2 a bad
// command line. `root` must have every subcommand and option registered.
std::optional<int> run_generate_command(const CLI::App& root, const ManPageText& text, int argc,
                                        char** argv);

}  // namespace spillway::cli
