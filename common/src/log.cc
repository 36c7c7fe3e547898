#include "spillway/common/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <string>

namespace spillway::log {

Status validate_level(std::string_view level) {
  auto parsed = spdlog::level::from_str(std::string(level));
  // from_str maps unknown names to "off"; only "off" itself may yield off.
  if (parsed == spdlog::level::off && level != "off") {
    return Status(ErrorCode::kConfig, "log level '" + std::string(level) +
                                          "' is not one of trace, debug, info, warn, error, "
                                          "critical, off");
  }
  return Status::Ok();
}

void setup(std::string_view level) {
  static const bool installed = [] {
    auto logger = spdlog::stderr_color_mt("spillway");
    spdlog::set_default_logger(logger);
    spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] [%t] %v");
    return true;
  }();
  (void)installed;
  spdlog::set_level(spdlog::level::from_str(std::string(level)));
}

}  // namespace spillway::log
