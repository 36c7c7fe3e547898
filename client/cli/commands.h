// The `spillway` command-line tool's subcommands. Each add_*_command
// registers one subcommand on the app; its callback writes the process exit
// status (0 = success, 1 = the operation failed) to *exit_code. Usage errors
// (exit 2) are found while parsing, before any callback connects.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

#include "spillway/connection.h"
#include "spillway/producer.h"

namespace spillway::cli {

// Default broker address of every subcommand's --broker flag.
inline constexpr const char* kDefaultBroker = "127.0.0.1:9093";

// TLS and SASL settings from the flags every subcommand that connects takes
// (--tls-ca, --tls-cert, --tls-key, --tls, --sasl-mechanism, --username,
// --password-file; security_flags.cc). Valid once the command line is parsed.
const SecurityOptions& cli_security();
// Registers those flags on every subcommand of `app` (however deep) that has
// a --broker flag. Call after registering the subcommands.
void add_security_flags(CLI::App& app);

// The connection settings of a subcommand's Admin connection: its --timeout-ms
// bounds the connect and every request, and the broker sees the CLI's name
// and version as the client id.
inline ConnectionOptions cli_connection_options(int timeout_ms) {
  ConnectionOptions options;
  options.connect_timeout = std::chrono::milliseconds(timeout_ms);
  options.request_timeout = std::chrono::milliseconds(timeout_ms);
  options.client_id = "spillway-cli " SPILLWAY_VERSION;
  options.security = cli_security();
  return options;
}

// Makes every subcommand's --broker (of `app` and its subcommands, however
// deep) a usage error unless it is HOST:PORT with a valid port. Call after
// registering the subcommands.
inline void check_broker_options(CLI::App& app) {
  const CLI::Validator broker_address(
      [](std::string& address) -> std::string {
        const Status st = check_broker_address(address);
        return st.ok() ? std::string() : std::string(st.message());
      },
      "HOST:PORT", "broker address");
  if (CLI::Option* broker = app.get_option_no_throw("--broker")) broker->check(broker_address);
  for (CLI::App* sub : app.get_subcommands({})) check_broker_options(*sub);
}

// --acks and --compression, which `produce` and `perf` both take: the text
// of the flags, checked against their names when parsed, and what it means
// for a Producer, in one place.
struct DeliveryFlags {
  std::string acks = "leader";       // none, leader, durable or all
  std::string compression = "none";  // none or zstd

  // Registers both flags on `cmd`; this object must outlive the parse.
  void add_to(CLI::App* cmd, const std::string& acks_help, const std::string& compression_help) {
    cmd->add_option("--acks", acks, acks_help)
        ->check(CLI::IsMember({"none", "leader", "durable", "all"}))
        ->capture_default_str();
    cmd->add_option("--compression", compression, compression_help)
        ->check(CLI::IsMember({"none", "zstd"}))
        ->capture_default_str();
  }
  // Sets the acks and compression of `options`.
  void apply(ProducerOptions* options) const {
    options->acks = acks == "none"      ? Acks::kNone
                    : acks == "durable" ? Acks::kDurable
                    : acks == "all"     ? Acks::kAll
                                        : Acks::kLeader;
    options->compression =
        compression == "zstd" ? ProducerCompression::kZstd : ProducerCompression::kNone;
  }
};

// `spillway ping`: connects, exchanges ApiVersions, prints the broker's
// version, the apis it serves and the round trip.
void add_ping_command(CLI::App& app, int* exit_code);

// `spillway topic create|delete|list|describe`.
void add_topic_command(CLI::App& app, int* exit_code);
// `spillway produce TOPIC`: lines from stdin or a file become messages.
void add_produce_command(CLI::App& app, int* exit_code);
// `spillway consume TOPIC`: prints messages, one value per line.
void add_consume_command(CLI::App& app, int* exit_code);

// `spillway group list|describe|reset-offsets|delete`.
void add_group_command(CLI::App& app, int* exit_code);

// `spillway user create|delete|list`: SCRAM users, through the broker or
// offline in a stopped broker's data directory (--data-dir).
void add_user_command(CLI::App& app, int* exit_code);
void add_cluster_command(CLI::App& app, int* exit_code);
// `spillway partition reassign|reassignments`: move partitions between the
// brokers of a cluster, and list the moves in progress.
void add_partition_command(CLI::App& app, int* exit_code);

// `spillway acl add|remove|list`: the broker's access control rules.
void add_acl_command(CLI::App& app, int* exit_code);

// `spillway perf produce|consume|e2e`: load tests; see client/cli/perf_command.cc.
void add_perf_command(CLI::App& app, int* exit_code);

}  // namespace spillway::cli
