// spillway-broker: the daemon. Reads the config (file, then flags), sets up
// logging, locks the data directory, listens, and serves until SIGINT/SIGTERM.
//
// Exit status: 0 after a clean stop, 2 for a bad command line or config
// (nothing was started), 1 when start-up fails (address in use, data dir).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <thread>

#include "config/command_line.h"
#include "data_dir.h"
#include "net/server.h"
#include "protocol/api_versions_handler.h"
#include "protocol/dispatcher.h"
#include "spillway/common/gather_writer.h"
#include "spillway/common/log.h"

namespace {

constexpr const char* kBrokerVersion = "spillway-broker " SPILLWAY_VERSION;

std::string format_endpoint(const asio::ip::tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace spillway;
  using namespace spillway::broker;

  CLI::App app("Spillway message broker", "spillway-broker");
  app.set_version_flag("--version", kBrokerVersion);
  ConfigCommandLine command_line(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  Result<BrokerConfig> resolved = command_line.resolve();
  if (!resolved.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n", std::string(resolved.status().message()).c_str());
    return 2;
  }
  const BrokerConfig& config = *resolved;
  log::setup(config.log_level);
  active_gather_backend();  // chooses io_uring or writev once, and logs the choice (at start)

  Result<DataDirLock> data_dir = DataDirLock::acquire(config.data_dir);
  if (!data_dir.ok()) {
    spdlog::critical("{}", data_dir.status().message());
    return 1;
  }

  Dispatcher dispatcher;
  add_api_versions_handler(dispatcher, kBrokerVersion);

  ServerOptions options;
  options.listen = *parse_host_port(config.listen);  // validated with the config
  options.threads = config.threads > 0 ? static_cast<size_t>(config.threads)
                                       : std::max(1u, std::thread::hardware_concurrency());
  options.max_frame_bytes = static_cast<uint32_t>(config.max_frame_bytes);
  options.max_connections = static_cast<size_t>(config.max_connections);
  options.queue_depth = static_cast<size_t>(config.max_in_flight_per_connection);
  options.shutdown_timeout = std::chrono::milliseconds(config.shutdown_timeout_ms);
  Server server(options, dispatcher);
  if (Status st = server.open(); !st.ok()) {
    spdlog::critical("{}", st.message());
    return 1;
  }
  // Tests and scripts parse "listening on HOST:PORT" from this line.
  spdlog::info("{} listening on {} (data_dir \"{}\", config \"{}\", {} thread(s))", kBrokerVersion,
               format_endpoint(server.local_endpoint()), config.data_dir,
               config.config_file.empty() ? "(none, defaults and flags)" : config.config_file,
               options.threads);
  server.run();
  spdlog::info("stopped cleanly");
  return 0;
}
