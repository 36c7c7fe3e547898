// --output json of the commands that print what they read (ping, topic
// list|describe, group list|describe): the flag, and the one way a JSON
// document is printed. `consume --output json` prints records through
// record_json.h instead.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace spillway::cli {

// Fields in the order the command adds them, which docs/cli.md documents.
using JsonDocument = nlohmann::ordered_json;

// Registers -o,--output (text or json, default text) on `cmd`, writing into
// *output, which must outlive the parse. Returns the option.
CLI::Option* add_output_option(CLI::App* cmd, std::string* output);

// Prints `document` on one line of stdout. A string that is not valid UTF-8
// (a client id some Kafka client chose) has its bad bytes replaced by
// U+FFFD rather than failing the command.
void print_json(const JsonDocument& document);

}  // namespace spillway::cli
