// The library log sink (log_sink.h): a threshold and a replaceable handler,
// stderr by default. Deliberately free of spdlog, so a program that links
// only the client library gets no logger it did not ask for.
#include "spillway/common/log_sink.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>

namespace spillway {
namespace {

constinit std::atomic<uint8_t> g_threshold{static_cast<uint8_t>(LogLevel::kWarn)};
// Held as a shared_ptr so that a line being written keeps the handler it
// started with alive while set_log_handler replaces it.
constinit std::mutex g_handler_mutex;
constinit std::shared_ptr<const LogHandler> g_handler;

void write_to_stderr(LogLevel level, std::string_view message) {
  // One call on the unbuffered stderr: one write(2), so lines from several
  // threads do not interleave mid-line.
  std::fprintf(stderr, "spillway: %s: %.*s\n", log_level_name(level),
               static_cast<int>(message.size()), message.data());
}

}  // namespace

const char* log_level_name(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warning";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      break;
  }
  return "off";
}

void set_log_handler(LogHandler handler) {
  std::shared_ptr<const LogHandler> next;
  if (handler) next = std::make_shared<const LogHandler>(std::move(handler));
  std::lock_guard<std::mutex> lock(g_handler_mutex);
  g_handler.swap(next);
  // The old handler is released here, or by the last line still using it.
}

void set_log_level(LogLevel level) noexcept {
  g_threshold.store(static_cast<uint8_t>(level), std::memory_order_relaxed);
}

namespace log {

bool enabled(LogLevel level) noexcept {
  return level != LogLevel::kOff &&
         static_cast<uint8_t>(level) >= g_threshold.load(std::memory_order_relaxed);
}

void write(LogLevel level, std::string_view message) noexcept {
  if (!enabled(level)) return;
  std::shared_ptr<const LogHandler> handler;
  {
    std::lock_guard<std::mutex> lock(g_handler_mutex);
    handler = g_handler;
  }
  if (!handler) {
    write_to_stderr(level, message);
    return;
  }
  try {
    (*handler)(level, message);
  } catch (...) {
    // A logging failure must not become the library's failure.
  }
}

}  // namespace log
}  // namespace spillway
