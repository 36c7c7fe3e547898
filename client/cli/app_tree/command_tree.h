// A read-only view of a CLI11 command tree (an App, its named subcommands,
// their options) in the terms that the generated documentation, the shell
// completions and the "did you mean" hints need. Shared by `spillway` and
// `spillway-broker`, so every artifact is derived from the same definition
// the parser uses and cannot drift from it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace spillway::cli {

// One command of the tree: the root app or a named subcommand, however deep.
struct CommandNode {
  std::vector<std::string> path;  // {"spillway", "topic", "create"}
  const CLI::App* app = nullptr;  // owned by the tree, which must outlive this
};

// Every visible command of `root` (the root first, then depth first in
// registration order). Hidden subcommands (group "") are left out.
std::vector<CommandNode> command_nodes(const CLI::App& root);

// The visible subcommands of `app` that have a name (option groups are
// nameless apps inside it and are not commands).
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);

// The visible flags and options of `app`, including those of its option
// groups, in registration order; positionals are left out.
std::vector<const CLI::Option*> named_options(const CLI::App& app);

// The positional arguments of `app` in order.
std::vector<const CLI::Option*> positionals(const CLI::App& app);

// The option's names as typed: "-b", "--broker".
std::vector<std::string> option_spellings(const CLI::Option& option);

// True iff the option consumes a value (an option, not a flag).
bool takes_value(const CLI::Option& option);

// The values an option accepts when it is checked with CLI::IsMember
// (read from the validator's "{a,b,c}" description); empty otherwise.
std::vector<std::string> value_choices(const CLI::Option& option);

// True iff the option's value is a path (CLI::ExistingFile, or a type name
// of FILE or DIR), so shells should complete file names for it.
bool value_is_path(const CLI::Option& option);

// What the option's value is called in help text ("HOST:PORT", "INT",
// "FILE"); empty for a flag.
std::string value_name(const CLI::Option& option);

}  // namespace spillway::cli
