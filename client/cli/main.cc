// spillway: the command-line tool for a Spillway broker. Subcommands are
// registered in commands.h; each has its own --help. Exit statuses are in
// exit_status.h; `spillway __generate ...` (hidden) writes the completion
// scripts and the man page the build installs (app_tree/generate_command.h).

#include <CLI/CLI.hpp>

#include "app_tree/generate_command.h"
#include "commands.h"
#include "exit_status.h"
#include "man_page_text.h"
#include "spillway/log.h"
#include "usage_error.h"
#include "version_command.h"

int main(int argc, char** argv) {
  // The client library's notices (e.g. its I/O backend) are for daemons; the
  // tool's own output is its messages and errors. -v shows them on stderr.
  spillway::set_log_level(spillway::LogLevel::kError);
  CLI::App app("Spillway command-line tool", "spillway");
  app.add_flag_callback("-v,--verbose", [] { spillway::set_log_level(spillway::LogLevel::kInfo); },
                        "show the client library's notices and warnings on stderr");
  app.set_version_flag("--version", "spillway " SPILLWAY_VERSION);
  app.require_subcommand(1);
  int exit_code = spillway::cli::kExitSuccess;
  spillway::cli::add_ping_command(app, &exit_code);
  spillway::cli::add_topic_command(app, &exit_code);
  spillway::cli::add_produce_command(app, &exit_code);
  spillway::cli::add_consume_command(app, &exit_code);
  spillway::cli::add_group_command(app, &exit_code);
  spillway::cli::add_user_command(app, &exit_code);
  spillway::cli::add_cluster_command(app, &exit_code);
  spillway::cli::add_partition_command(app, &exit_code);
  spillway::cli::add_acl_command(app, &exit_code);
  spillway::cli::add_perf_command(app, &exit_code);
  spillway::cli::add_version_command(app, &exit_code);
  spillway::cli::check_broker_options(app);
  spillway::cli::add_security_flags(app);
  if (std::optional<int> generated = spillway::cli::run_generate_command(
          app, spillway::cli::spillway_man_page_text(), argc, argv)) {
    return *generated;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return spillway::cli::report_parse_error(app, e, argc, argv);
  }
  return exit_code;
}
