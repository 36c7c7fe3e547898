// Consumer group metrics on /metrics: per group its members, generation and
// rebalances (GroupCoordinator::stats), and per partition with a committed
// offset the lag (high watermark minus committed offset). Gathered when
// /metrics is scraped, so the produce, fetch and commit paths do nothing
// for them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "groups/group_coordinator.h"

namespace spillway::broker {

class CoreSet;
class OffsetStore;
class TopicRegistry;

struct GroupCommit {
  std::string group;
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;  // the next offset to consume
};

struct GroupMetricsInput {
  std::vector<groups::GroupStats> stats;  // groups with members or a known generation
  std::vector<GroupCommit> commits;       // every committed offset
};

// Gathers the input: the coordinator's stats (none when `groups` is null),
// then the committed offsets, read on core 0's sync thread because a commit
// holds the offset store's lock across its fsync and core 0 serves
// connections. Then done(input) on core 0. Call on core 0; `offsets` and
// `cores` must outlive the call.
void collect_group_metrics(groups::GroupCoordinator* groups, const OffsetStore& offsets,
                           CoreSet& cores, std::function<void(GroupMetricsInput)> done);

// Appends the families spillway_group_members, spillway_group_generation,
// spillway_group_rebalances_total and spillway_group_lag. Lag is left out
// for a partition the broker no longer has. Reads high watermarks (atomic).
void render_group_metrics(std::string& out, const GroupMetricsInput& input,
                          const TopicRegistry& topics);

// A Prometheus label value: backslash, double quote and newline escaped
// (group names are any bytes).
std::string escape_label_value(std::string_view value);

}  // namespace spillway::broker
