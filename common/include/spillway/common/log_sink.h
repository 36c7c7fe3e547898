// Where the log lines of Spillway's libraries (common/ and the client
// library) go. The application decides: it sets a handler and a level
// (applications include spillway/log.h, which is this header); until it
// does, warnings and errors go to stderr and nothing else does. No library
// code writes to spdlog or configures any process-wide logger behind the
// application's back; the broker routes these lines into its spdlog logger
// itself (log::setup in log.h).
//
// Concurrency: every function here may be called from any thread. The
// handler runs on the thread that logs (the producer's I/O thread, the
// caller of send(), ...), on several threads at once if they log at once.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace spillway {

enum class LogLevel : uint8_t { kDebug, kInfo, kWarn, kError, kOff };

// "debug", "info", "warning", "error" or "off".
const char* log_level_name(LogLevel level) noexcept;

// Receives one line (no trailing newline) at a level at or above the one
// set_log_level() chose. Must be thread-safe; an exception it throws is
// swallowed (the line is lost, the library carries on). The message is
// valid only during the call.
using LogHandler = std::function<void(LogLevel level, std::string_view message)>;

// Sends every later line to `handler`; an empty handler restores the
// default, which writes "spillway: LEVEL: MESSAGE" to stderr. A line being
// written on another thread while this runs goes to the old handler or the
// new one, never to neither.
void set_log_handler(LogHandler handler);

// Lines below `level` are dropped before any handler sees them (or the
// message is even formatted); kOff drops everything. Default: kWarn.
void set_log_level(LogLevel level) noexcept;

namespace log {

// True iff a line at `level` would reach the handler. Library code checks
// it before building a message it would otherwise throw away.
bool enabled(LogLevel level) noexcept;

// Hands `message` to the handler if `level` is enabled. Not for hot paths:
// it takes a lock to read the handler.
void write(LogLevel level, std::string_view message) noexcept;

}  // namespace log
}  // namespace spillway
