// A manual page (roff, man-pages(7) layout) generated from a CLI11 command
// tree: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, SUBCOMMANDS (each command with
// its arguments and options), EXIT STATUS, SEE ALSO. The options' text is
// their --help text, so the page cannot disagree with the parser.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace spillway::cli {

// What a man page needs besides the command tree.
struct ManPageText {
  std::string summary;                   // NAME: "command-line tool for a Spillway broker"
  std::string source;                    // footer: "spillway 0.1.0"
  std::vector<std::string> description;  // DESCRIPTION paragraphs (plain text)
  std::vector<std::pair<std::string, std::string>> exit_statuses;  // {"2", "a usage error"}
  std::vector<std::string> see_also;                               // "spillway-broker(1)"
};

// The page for `root`, section 1, in roff. Text is escaped for roff
// (backslashes, control characters at line starts, non-ASCII as \[uXXXX]).
std::string man_page(const CLI::App& root, const ManPageText& text);

}  // namespace spillway::cli
