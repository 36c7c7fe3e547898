// The range assignor (range_assignor.h).
#include "range_assignor.h"

#include <algorithm>

namespace spillway::assignors {

GroupAssignment range_assign(const std::vector<MemberSubscription>& members,
                             const PartitionCounts& partitions) {
  GroupAssignment out;
  std::map<std::string, std::vector<std::string>> subscribers;  // topic -> member ids
  for (const MemberSubscription& m : members) {
    out[m.member_id];
    for (const std::string& t : m.topics) subscribers[t].push_back(m.member_id);
  }
  for (auto& [topic, ids] : subscribers) {
    const auto count = partitions.find(topic);
    if (count == partitions.end() || count->second <= 0) continue;
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const int32_t n = static_cast<int32_t>(ids.size());
    const int32_t each = count->second / n;
    const int32_t extra = count->second % n;
    int32_t next = 0;
    for (int32_t i = 0; i < n; ++i) {
      const int32_t take = each + (i < extra ? 1 : 0);
      for (int32_t k = 0; k < take; ++k) out[ids[i]].push_back({topic, next++});
    }
  }
  for (auto& [id, parts] : out) std::sort(parts.begin(), parts.end());
  return out;
}

}  // namespace spillway::assignors
