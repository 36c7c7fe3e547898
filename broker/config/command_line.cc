// The broker's command line, generated from the key table.
#include "command_line.h"

#include "config_file.h"
#include "config_keys.h"

namespace spillway::broker {

ConfigCommandLine::ConfigCommandLine(CLI::App& app) {
  const auto keys = config_keys();
  values_ = std::make_unique<std::string[]>(keys.size());
  options_ = std::make_unique<CLI::Option*[]>(keys.size());
  app.add_option("-c,--config", config_path_,
                 "TOML config file (see config/broker.toml); flags below override it")
      ->type_name("FILE");
  const BrokerConfig defaults;
  for (size_t i = 0; i < keys.size(); ++i) {
    const ConfigKey& key = keys[i];
    std::string help = std::string(key.help) + "\n[" + std::string(key.section) + "] " +
                       std::string(key.name) + ": " + describe_expected(key) + ", default " +
                       format_value(key, defaults);
    options_[i] = app.add_option("--" + std::string(key.flag), values_[i], help)
                      ->group("Settings (override the config file)")
                      ->type_name("VALUE")
                      // The last occurrence wins, so a wrapper script's
                      // defaults can be overridden by appending flags.
                      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
}

int ConfigCommandLine::exit_status(const CLI::App& app, const CLI::ParseError& error) {
  const int cli11 = app.exit(error);
  return cli11 == static_cast<int>(CLI::ExitCodes::Success) ? 0 : 2;
}

Result<BrokerConfig> ConfigCommandLine::resolve() const {
  BrokerConfig config;
  if (!config_path_.empty()) SPILLWAY_RETURN_IF_ERROR(apply_config_file(config_path_, config));
  const auto keys = config_keys();
  for (size_t i = 0; i < keys.size(); ++i) {
    if (options_[i]->count() == 0) continue;
    Status st = set_from_text(keys[i], values_[i], config);
    if (!st.ok()) {
      return Status(ErrorCode::kConfig,
                    "--" + std::string(keys[i].flag) + ": " + std::string(st.message()));
    }
  }
  return config;
}

}  // namespace spillway::broker
