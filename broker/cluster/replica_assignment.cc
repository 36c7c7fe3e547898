#include "cluster/replica_assignment.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "cluster/stable_hash.h"

namespace spillway::broker::cluster {

namespace {

// Racks alternate: the first broker of each rack (racks and brokers in
// order), then the second of each, and so on.
std::vector<PlacementBroker> rack_alternated(const std::vector<PlacementBroker>& brokers) {
  std::map<std::string, std::vector<PlacementBroker>> by_rack;
  for (const PlacementBroker& b : brokers) by_rack[b.rack].push_back(b);
  std::vector<PlacementBroker> out;
  out.reserve(brokers.size());
  for (size_t round = 0; out.size() < brokers.size(); ++round) {
    for (auto& [rack, list] : by_rack) {
      if (round < list.size()) out.push_back(list[round]);
    }
  }
  return out;
}

size_t replica_index(size_t first, size_t shift, size_t j, size_t n) {
  const size_t s = 1 + (shift + j) % (n - 1);
  return (first + s) % n;
}

}  // namespace

Result<std::vector<std::vector<BrokerId>>> assign_replicas(std::vector<PlacementBroker> brokers,
                                                           int32_t partitions,
                                                           int32_t replication_factor,
                                                           std::string_view topic) {
  if (partitions <= 0 || replication_factor <= 0) {
    return Status(ErrorCode::kInvalidArgument, "partitions and replication factor must be > 0");
  }
  if (static_cast<size_t>(replication_factor) > brokers.size()) {
    return Status(ErrorCode::kInvalidArgument,
                  "replication factor " + std::to_string(replication_factor) + " above the " +
                      std::to_string(brokers.size()) + " live brokers");
  }
  std::sort(brokers.begin(), brokers.end(),
            [](const PlacementBroker& a, const PlacementBroker& b) { return a.id < b.id; });
  const bool racks = std::all_of(brokers.begin(), brokers.end(),
                                 [](const PlacementBroker& b) { return !b.rack.empty(); });
  std::vector<PlacementBroker> arranged = racks ? rack_alternated(brokers) : brokers;
  std::set<std::string> all_racks;
  for (const PlacementBroker& b : brokers) all_racks.insert(b.rack);

  const size_t n = arranged.size();
  const uint64_t h = stable_hash(topic);
  const size_t start = h % n;
  size_t shift = (h >> 32) % n;

  std::vector<std::vector<BrokerId>> out(static_cast<size_t>(partitions));
  for (size_t p = 0; p < out.size(); ++p) {
    if (p > 0 && p % n == 0) ++shift;
    const size_t first = (p + start) % n;
    std::vector<BrokerId>& reps = out[p];
    reps.push_back(arranged[first].id);
    if (n == 1) continue;
    std::set<std::string> used_racks{arranged[first].rack};
    std::set<BrokerId> used{arranged[first].id};
    // Kafka multiplies the shift by the rack count so that the walk over
    // the arranged list lands on another rack first.
    const size_t base_shift = racks ? shift * all_racks.size() : shift;
    size_t k = 0;
    while (reps.size() < static_cast<size_t>(replication_factor)) {
      const PlacementBroker& b = arranged[replica_index(first, base_shift, k++, n)];
      const bool rack_ok =
          !racks || !used_racks.contains(b.rack) || used_racks.size() == all_racks.size();
      if (rack_ok && !used.contains(b.id)) {
        reps.push_back(b.id);
        used.insert(b.id);
        used_racks.insert(b.rack);
      }
      // Every broker visited without a fit: take any unused one (cannot
      // loop: rf <= n).
      if (k > 2 * n) {
        for (const PlacementBroker& x : arranged) {
          if (reps.size() < static_cast<size_t>(replication_factor) && !used.contains(x.id)) {
            reps.push_back(x.id);
            used.insert(x.id);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace spillway::broker::cluster
