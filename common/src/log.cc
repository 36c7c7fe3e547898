// The daemons' spdlog setup (log.h). Kept apart from the library sink
// (log_sink.cc) so that only binaries that call setup() link spdlog's logger.
#include "spillway/common/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <string>

#include "spillway/common/log_sink.h"

namespace spillway::log {
namespace {

// The sink threshold that lets through what spdlog at `level` would print
// (spdlog's trace has no library counterpart; critical has no library lines).
LogLevel sink_threshold(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return LogLevel::kDebug;
    case spdlog::level::info:
      return LogLevel::kInfo;
    case spdlog::level::warn:
      return LogLevel::kWarn;
    case spdlog::level::err:
      return LogLevel::kError;
    default:
      return LogLevel::kOff;
  }
}

spdlog::level::level_enum spdlog_level(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      break;
  }
  return spdlog::level::off;
}

}  // namespace

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
  set_log_handler([](LogLevel line_level, std::string_view message) {
    spdlog::log(spdlog_level(line_level), "{}", message);
  });
  const auto parsed = spdlog::level::from_str(std::string(level));
  spdlog::set_level(parsed);
  set_log_level(sink_threshold(parsed));
}

}  // namespace spillway::log
