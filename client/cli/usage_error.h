// How `spillway` reports a command line CLI11 refused: help and --version
// are not errors; every other refusal is a usage error (exit 2), shown as
// "did you mean" when a word was a misspelt subcommand or flag
// (app_tree/did_you_mean.h), else as CLI11's message.
#pragma once

#include <CLI/CLI.hpp>

namespace spillway::cli {

// Prints what `error` (thrown by app.parse(argc, argv)) has to say and
// returns the process exit status (exit_status.h).
int report_parse_error(const CLI::App& app, const CLI::ParseError& error, int argc, char** argv);

}  // namespace spillway::cli
