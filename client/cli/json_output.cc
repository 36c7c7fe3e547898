// --output json for the administrative commands (json_output.h).
#include "json_output.h"

#include <cstdio>

namespace spillway::cli {

CLI::Option* add_output_option(CLI::App* cmd, std::string* output) {
  return cmd
      ->add_option("-o,--output", *output,
                   "text (for people) or json (one JSON document on one line, for scripts)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

void print_json(const JsonDocument& document) {
  const std::string line =
      document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::printf("%s\n", line.c_str());
}

}  // namespace spillway::cli
