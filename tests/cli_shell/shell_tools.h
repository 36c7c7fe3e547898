// Test support for the CLI shell tests: runs the spillway binary, bash, zsh
// and groff, and names the generated files under build/share.
#pragma once

#include <string>
#include <vector>

#include "broker_process.h"

namespace spillway::testing {

// Runs the built `spillway` with `args` (no --broker added).
ProcessExit run_cli(const std::vector<std::string>& args);

// Runs `script` with `bash -c` or `zsh -f -c` (found in PATH).
ProcessExit run_bash(const std::string& script);
ProcessExit run_zsh(const std::string& script);

// A generated file: build/share/<relative>.
std::string share_file(const std::string& relative);

// The lines of `text`, without their newlines.
std::vector<std::string> lines_of(const std::string& text);

bool contains(const std::string& haystack, const std::string& needle);

}  // namespace spillway::testing
