// Sizes and durations as `spillway topic describe` prints them for people:
// "unlimited", "7d", "1 GiB", "117.7 MiB". Scripts get the raw numbers from
// --output json instead.
#pragma once

#include <cstdint>
#include <string>

namespace spillway::cli {

// A retention time in milliseconds: "unlimited" when negative, else in the
// largest of d, h, m, s, ms that divides it exactly ("7d", "90m", "1500ms"),
// so nothing is rounded away.
std::string human_duration_ms(int64_t ms);

// A byte count: "unlimited" when negative; "N B" below 1 KiB; else in the
// largest binary unit (KiB, MiB, GiB, TiB, PiB) not above it, whole when it
// divides exactly ("1 GiB"), otherwise with one decimal ("117.7 MiB").
std::string human_bytes(int64_t bytes);

}  // namespace spillway::cli
