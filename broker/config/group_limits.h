// The [groups] settings as the coordinator's limits (groups::GroupLimits),
// with the checks that span two keys.
#pragma once

#include "config/broker_config.h"
#include "groups/group_coordinator.h"
#include "spillway/common/status.h"

namespace spillway::broker {

// kConfig when groups.min_session_timeout_ms > groups.max_session_timeout_ms.
Result<groups::GroupLimits> group_limits(const BrokerConfig& config);

}  // namespace spillway::broker
