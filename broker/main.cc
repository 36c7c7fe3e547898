// spillway-broker: the daemon. Reads the config (file, then flags), sets up
// logging, and runs a BrokerRuntime (broker_runtime.h: locks the data
// directory, listens, serves) until SIGINT/SIGTERM.
// `spillway-broker repair ...` is the offline repair of a corrupt partition
// instead (repair/repair_command.h).
//
// Exit status: 0 after a clean stop, 2 for a bad command line or config
// (nothing was started), 1 when start-up fails (address in use, data dir).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "app_tree/generate_command.h"
#include "broker_runtime.h"
#include "config/command_line.h"
#include "config/man_page_text.h"
#include "repair/repair_command.h"
#include "spillway/common/log.h"

namespace {

constexpr const char* kBrokerVersion = "spillway-broker " SPILLWAY_VERSION;

}  // namespace

int main(int argc, char** argv) {
  using namespace spillway;
  using namespace spillway::broker;

  if (argc >= 2 && std::string_view(argv[1]) == "repair") return run_repair_command(argc, argv);
  CLI::App app("Spillway message broker", "spillway-broker");
  app.footer(
      "Offline repair of a corrupt partition (broker stopped):\n"
      "  spillway-broker repair --data-dir DIR --topic TOPIC --partition N   (see repair --help)");
  app.set_version_flag("--version", kBrokerVersion);
  ConfigCommandLine command_line(app);
  // `spillway-broker __generate man` etc.: run by the build (broker/CMakeLists.txt).
  if (std::optional<int> generated =
          cli::run_generate_command(app, broker_man_page_text(), argc, argv)) {
    return *generated;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ConfigCommandLine::exit_status(app, e);
  }
  Result<BrokerConfig> resolved = command_line.resolve();
  if (!resolved.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n", std::string(resolved.status().message()).c_str());
    return 2;
  }
  const std::string log_level = resolved->log_level;
  Result<std::unique_ptr<BrokerRuntime>> runtime =
      BrokerRuntime::configure(std::move(*resolved), BrokerRuntime::Mode::kDaemon);
  if (!runtime.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n", std::string(runtime.status().message()).c_str());
    return 2;
  }
  log::setup(log_level);
  if (std::optional<BrokerRuntime::StartFailure> failed = (*runtime)->start()) {
    spdlog::critical("{}", failed->error.message());
    return failed->bad_config ? 2 : 1;
  }
  (*runtime)->run();  // until SIGINT/SIGTERM
  return 0;
}
