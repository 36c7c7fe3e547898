// Reading broker settings from a TOML file (config/broker.toml documents the
// format). Any unknown key, wrong type or out-of-range value is an error that
// names the file, the line and what was expected.
#pragma once

#include <string>
#include <string_view>

#include "broker_config.h"
#include "spillway/common/status.h"

namespace spillway::broker {

// Applies every key in the TOML file at `path` on top of `config`. On error
// (kConfig) the message reads "PATH:LINE:COLUMN: what; expected ..." (or
// "PATH: ..." when the file cannot be read, or is a directory) and `config`
// may be partly updated (the caller exits).
Status apply_config_file(const std::string& path, BrokerConfig& config);

// As above for TOML text; `source_name` stands for the path in messages.
Status apply_config_text(std::string_view text, std::string_view source_name, BrokerConfig& config);

}  // namespace spillway::broker
