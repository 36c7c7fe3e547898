// The one logger setup. Everything logs through spdlog's default logger
// (spdlog::info(...) and friends); this file only configures it once at start.
#pragma once

#include <string_view>

#include "spillway/common/status.h"

namespace spillway::log {

// Parses "trace|debug|info|warn|error|critical|off". Error value names the
// accepted levels.
Status validate_level(std::string_view level);

// Configures the default logger: stderr, "[time] [level] [thread] message",
// the given level. Safe to call again to change the level.
// Precondition: validate_level(level).ok().
void setup(std::string_view level);

}  // namespace spillway::log
