// `spillway ping --broker HOST:PORT [--count N] [--output json]`.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "json_output.h"
#include "spillway/admin.h"

namespace spillway::cli {

namespace {

struct PingOptions {
  std::string broker = kDefaultBroker;
  int count = 1;
  int timeout_ms = 5'000;
  std::string output = "text";
};

// --output json: one document once every round trip is made.
// {"broker":"127.0.0.1:9093","version":"spillway 0.x","round_trips_ms":[0.21],
//  "apis":[{"key":0,"name":"ApiVersions","min_version":0,"max_version":0},...]}
JsonDocument ping_json(const std::string& broker, const ApiVersionsResponse& versions,
                       const std::vector<double>& round_trips_ms) {
  JsonDocument apis = JsonDocument::array();
  for (const ApiVersionRange& api : versions.apis) {
    const char* name = frame::api_name(api.api_key);
    apis.push_back({{"key", api.api_key},
                    {"name", name ? JsonDocument(name) : JsonDocument(nullptr)},
                    {"min_version", api.min_version},
                    {"max_version", api.max_version}});
  }
  return {{"broker", broker},
          {"version", versions.broker_version},
          {"round_trips_ms", round_trips_ms},
          {"apis", std::move(apis)}};
}

int run_ping(const PingOptions& options) {
  Result<Admin> admin = Admin::connect(options.broker, cli_connection_options(options.timeout_ms));
  if (!admin.ok()) {
    std::fprintf(stderr, "spillway ping: %s\n", std::string(admin.status().message()).c_str());
    return 1;
  }
  std::vector<double> round_trips_ms;
  ApiVersionsResponse versions;
  for (int i = 0; i < options.count; ++i) {
    Result<PingReply> reply = admin->ping();
    if (!reply.ok()) {
      std::fprintf(stderr, "spillway ping: %s: %s\n", options.broker.c_str(),
                   reply.status().to_string().c_str());
      return 1;
    }
    const double ms = std::chrono::duration<double, std::milli>(reply->round_trip).count();
    if (options.output == "json") {
      round_trips_ms.push_back(ms);
      if (i == 0) versions = std::move(reply->versions);
      continue;
    }
    std::printf("%s at %s: round trip %.3f ms\n", reply->versions.broker_version.c_str(),
                options.broker.c_str(), ms);
    if (i == 0) {
      std::string apis;
      for (const ApiVersionRange& api : reply->versions.apis) {
        const char* name = frame::api_name(api.api_key);
        apis += " " + (name ? std::string(name) : "api" + std::to_string(api.api_key)) + " v" +
                std::to_string(api.min_version);
        if (api.max_version != api.min_version) apis += "-" + std::to_string(api.max_version);
      }
      std::printf("serves:%s\n", apis.c_str());
    }
  }
  if (options.output == "json") print_json(ping_json(options.broker, versions, round_trips_ms));
  return 0;
}

}  // namespace

void add_ping_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<PingOptions>();
  CLI::App* ping = app.add_subcommand("ping", "Check that a broker answers; print its version");
  ping->add_option("-b,--broker", options->broker, "broker address HOST:PORT")
      ->capture_default_str();
  ping->add_option("-n,--count", options->count, "round trips to make")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  ping->add_option("--timeout-ms", options->timeout_ms, "connect and response timeout")
      ->check(CLI::Range(1, 3'600'000))
      ->capture_default_str();
  add_output_option(ping, &options->output);
  ping->callback([options, exit_code] { *exit_code = run_ping(*options); });
}

}  // namespace spillway::cli
