// "Did you mean" for a command line CLI11 refused: finds the first word that
// names neither a subcommand nor a flag of the command it was typed under,
// and the names of that command it is closest to.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace spillway::cli {

struct UnknownWord {
  enum class Kind { kSubcommand, kFlag };
  Kind kind = Kind::kSubcommand;
  std::string word;                      // as typed, without any "=VALUE"
  std::string command;                   // "spillway topic"
  std::vector<std::string> suggestions;  // may be empty
};

// Walks `args` (argv without the program name) down the tree of `root` the
// way CLI11 parses it: a word naming a subcommand of the current command
// enters it, an option's value is skipped, "--" ends the options. Returns
// the first unknown long flag (--name), or the first word where the current
// command expects a subcommand and none has that name; nothing when every
// word is known (the error was something else: a bad value, a missing flag).
std::optional<UnknownWord> find_unknown_word(const CLI::App& root,
                                             const std::vector<std::string>& args);

// The message for `unknown`: "unknown subcommand 'pnig' for 'spillway'; did
// you mean 'ping'?", with every suggestion when several are as close.
std::string describe_unknown_word(const UnknownWord& unknown);

}  // namespace spillway::cli
