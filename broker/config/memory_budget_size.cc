// Reads the machine's and the cgroup's memory limits.
#include "memory_budget_size.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace spillway::broker {

namespace {

// The number in the first line of `path`; 0 when absent or "max".
uint64_t read_limit(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  try {
    return std::stoull(text);
  } catch (...) {
    return 0;
  }
}

}  // namespace

uint64_t usable_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  uint64_t usable = pages > 0 && page_size > 0
                        ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size)
                        : 0;
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const uint64_t limit = read_limit(path);
    // cgroup v1 reports "no limit" as a huge number, which min() ignores.
    if (limit > 0) usable = usable == 0 ? limit : std::min(usable, limit);
  }
  return usable;
}

Result<uint64_t> resolve_memory_budget(const BrokerConfig& config) {
  const auto share = static_cast<uint64_t>(config.connection_memory_bytes);
  if (config.memory_budget_bytes > 0) {
    const auto configured = static_cast<uint64_t>(config.memory_budget_bytes);
    if (configured < share) {
      return Status(ErrorCode::kConfig, "limits.memory_budget_bytes (" +
                                            std::to_string(configured) +
                                            ") must be at least limits.connection_memory_bytes (" +
                                            std::to_string(share) + ")");
    }
    return configured;
  }
  constexpr uint64_t kMinimum = 64u << 20;
  return std::max({usable_memory_bytes() / 4, share, kMinimum});
}

}  // namespace spillway::broker
