// The `spillway` man page's prose (man_page_text.h).
#include "man_page_text.h"

#include <string>

#include "build_info.h"
#include "exit_status.h"

namespace spillway::cli {

ManPageText spillway_man_page_text() {
  ManPageText text;
  text.summary = "command-line tool for a Spillway broker";
  text.source = std::string("spillway ") + build_info().version;
  text.description = {
      "spillway talks to a Spillway broker over its native protocol: it checks that a broker "
      "answers (ping), manages topics, consumer groups, SCRAM users, access control rules and "
      "partition moves, produces lines of input as records, prints the records of a topic, and "
      "runs load tests (perf).",
      "Every subcommand that connects takes --broker HOST:PORT (default 127.0.0.1:9093), the "
      "TLS flags (--tls, --tls-ca, --tls-cert, --tls-key, --tls-server-name) and the SASL flags "
      "(--sasl-mechanism, --username, --password-file). Each subcommand has its own --help.",
      "Bash and zsh completions are generated from the same definitions as this page and "
      "installed beside it.",
  };
  text.exit_statuses = {
      {std::to_string(kExitSuccess), "Success (also for --help and --version)."},
      {std::to_string(kExitFailed),
       "The operation failed: no broker answered, the broker refused the request or answered an "
       "error, a record was not acknowledged, a file could not be read or written. The message "
       "on standard error says which."},
      {std::to_string(kExitUsage),
       "A usage error, found before anything connects: an unknown subcommand or flag (with the "
       "closest names, \"did you mean\"), a missing argument, or a value of the wrong form or "
       "out of its range (--broker localhost, perf e2e --size 4)."},
  };
  text.see_also = {"spillway-broker(1)"};
  return text;
}

}  // namespace spillway::cli
