// The CLI's topic arguments are checked against the topic-name rules
// (spillway/common/topic_name.h, the broker's too) when parsed, so a name
// no broker would accept is a usage error (exit 2) found before anything
// connects, not a failed request (exit 1).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "spillway/common/topic_name.h"

namespace spillway::cli {

// For `->check(...)` on an option or positional that names a topic.
inline CLI::Validator topic_name_check() {
  return CLI::Validator(
      [](std::string& name) {
        const Status st = check_topic_name(name);
        return st.ok() ? std::string() : std::string(st.message());
      },
      "TOPIC", "topic name");
}

}  // namespace spillway::cli
