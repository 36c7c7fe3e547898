// The broker's command line: --config FILE and one override flag per setting
// (generated from the key table in config_keys.h, so --help lists them all).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "broker_config.h"
#include "spillway/common/status.h"

namespace spillway::broker {

class ConfigCommandLine {
 public:
  // Registers --config and the override flags on `app`, which must outlive
  // this object; the flags write into this object when `app` parses.
  explicit ConfigCommandLine(CLI::App& app);

  ConfigCommandLine(const ConfigCommandLine&) = delete;
  ConfigCommandLine& operator=(const ConfigCommandLine&) = delete;

  // The exit status for a parse error of `app`, after printing it as CLI11
  // does (help and version text too): 0 for --help / --version, 2 for every
  // usage error (CLI11's own codes, such as 109 for an unknown flag, would
  // tell scripts nothing; 2 is the broker's "bad command line or config").
  static int exit_status(const CLI::App& app, const CLI::ParseError& error);

  // After a successful parse: defaults, then the --config file (if given),
  // then each flag given on the command line. Error (kConfig) names the file
  // and line, or the flag, and what was expected.
  Result<BrokerConfig> resolve() const;

 private:
  std::string config_path_;
  std::unique_ptr<std::string[]> values_;  // one per key, in config_keys() order
  std::unique_ptr<CLI::Option*[]> options_;
};

}  // namespace spillway::broker
