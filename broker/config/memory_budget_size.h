// The size of the broker-wide memory budget (protocol/memory_budget.h):
// limits.memory_budget_bytes, or, when that is 0, a quarter of the memory
// this process may use (the machine's, or its container's cgroup limit if
// lower).
#pragma once

#include <cstdint>

#include "broker_config.h"
#include "spillway/common/status.h"

namespace spillway::broker {

// Physical memory, lowered to the cgroup (v2 memory.max, v1
// memory.limit_in_bytes) limit when there is one. 0 if unknown.
uint64_t usable_memory_bytes();

// The budget to use. Error (kConfig) when a configured budget is smaller
// than one connection's share (limits.connection_memory_bytes).
Result<uint64_t> resolve_memory_budget(const BrokerConfig& config);

}  // namespace spillway::broker
