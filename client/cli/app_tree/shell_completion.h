// Bash and zsh completion scripts generated from a CLI11 command tree: the
// subcommands of each command, its flags, and for an option's value the
// choices it accepts (CLI::IsMember) or file names (CLI::ExistingFile).
// A word naming a subcommand enters it, as when CLI11 parses, and option
// values are skipped, so completion follows the same tree the parser does.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace spillway::cli {

// A bash script defining _<program> (dashes become underscores) and
// registering it with `complete -F` for the root app's name; for
// /usr/share/bash-completion/completions/<program>.
std::string bash_completion(const CLI::App& root);

// A zsh completion function file (#compdef <program>); for a directory on
// $fpath, named _<program>.
std::string zsh_completion(const CLI::App& root);

}  // namespace spillway::cli
