// The client library's log lines, as an application controls them.
//
// The library reports failures as Status values and callbacks; its log lines
// are only notices about how it runs (e.g. "gather writes: writev (io_uring
// unavailable here, ...)" at info level). By default lines at warning level
// and above go to stderr as "spillway: warning: MESSAGE" and nothing below
// does, so a program that only sends and receives prints nothing of the
// library's. The library never configures spdlog or any other process-wide
// logger.
//
//   spillway::set_log_level(spillway::LogLevel::kInfo);
//   spillway::set_log_handler([](spillway::LogLevel level, std::string_view line) {
//     my_logger.log(to_my_level(level), line);  // must be thread-safe
//   });
//
// Set both before creating the first Producer, Consumer or Admin to see the
// lines written while they start (the I/O backend is chosen, and reported,
// once per process on first use). set_log_level(LogLevel::kOff) silences
// the library entirely.
#pragma once

#include "spillway/common/log_sink.h"  // LogLevel, LogHandler, set_log_handler, set_log_level
