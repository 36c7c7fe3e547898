// Human-readable sizes and durations (human_units.h).
#include "human_units.h"

#include <cstdio>

namespace spillway::cli {

std::string human_duration_ms(int64_t ms) {
  if (ms < 0) return "unlimited";
  struct Unit {
    int64_t ms;
    const char* suffix;
  };
  static constexpr Unit kUnits[] = {
      {86'400'000, "d"}, {3'600'000, "h"}, {60'000, "m"}, {1'000, "s"}};
  for (const Unit& unit : kUnits) {
    if (ms != 0 && ms % unit.ms == 0) return std::to_string(ms / unit.ms) + unit.suffix;
  }
  return std::to_string(ms) + "ms";
}

std::string human_bytes(int64_t bytes) {
  if (bytes < 0) return "unlimited";
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  int64_t scale = 1024;
  size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && bytes / 1024 >= scale) {
    scale *= 1024;
    ++unit;
  }
  if (bytes % scale == 0) return std::to_string(bytes / scale) + " " + kUnits[unit];
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s",
                static_cast<double>(bytes) / static_cast<double>(scale), kUnits[unit]);
  return text;
}

}  // namespace spillway::cli
