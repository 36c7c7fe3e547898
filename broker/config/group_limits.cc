// [groups] -> groups::GroupLimits.
#include "config/group_limits.h"

namespace spillway::broker {

Result<groups::GroupLimits> group_limits(const BrokerConfig& config) {
  if (config.group_min_session_timeout_ms > config.group_max_session_timeout_ms) {
    return Status(ErrorCode::kConfig, "groups.min_session_timeout_ms (" +
                                          std::to_string(config.group_min_session_timeout_ms) +
                                          ") is above groups.max_session_timeout_ms (" +
                                          std::to_string(config.group_max_session_timeout_ms) +
                                          ")");
  }
  groups::GroupLimits limits;
  limits.min_session_timeout = std::chrono::milliseconds(config.group_min_session_timeout_ms);
  limits.max_session_timeout = std::chrono::milliseconds(config.group_max_session_timeout_ms);
  limits.initial_rebalance_delay =
      std::chrono::milliseconds(config.group_initial_rebalance_delay_ms);
  limits.max_group_size = static_cast<size_t>(config.group_max_size);
  limits.max_groups = static_cast<size_t>(config.group_max_groups);
  limits.max_protocols = static_cast<size_t>(config.group_max_protocols);
  limits.max_metadata_bytes = static_cast<size_t>(config.group_max_metadata_bytes);
  limits.max_assignment_bytes = static_cast<size_t>(config.group_max_assignment_bytes);
  return limits;
}

}  // namespace spillway::broker
