// The exit statuses of `spillway`, in one place: main.cc and the
// subcommands return them, the man page lists them (man_page_text.cc), and
// docs/cli.md documents them for scripts.
#pragma once

namespace spillway::cli {

// The command did what was asked (`--help` and `--version` too).
inline constexpr int kExitSuccess = 0;
// The operation failed: no broker answered, the broker refused the request
// or answered an error, a record was not acknowledged, a file could not be
// read or written. The message on stderr says which.
inline constexpr int kExitFailed = 1;
// A usage error, found while parsing and before anything connects: an
// unknown subcommand or flag, a missing argument, or a value of the wrong
// form or out of its range.
inline constexpr int kExitUsage = 2;

}  // namespace spillway::cli
