// The cooperative-sticky assignor (cooperative_sticky_assignor.h).
#include "cooperative_sticky_assignor.h"

#include <algorithm>
#include <set>

namespace spillway::assignors {

GroupAssignment cooperative_sticky_assign(const std::vector<MemberSubscription>& members,
                                          const PartitionCounts& partitions) {
  GroupAssignment out;
  if (members.empty()) return out;
  std::vector<const MemberSubscription*> sorted;
  for (const MemberSubscription& m : members) sorted.push_back(&m);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->member_id < b->member_id; });

  // Every partition some member subscribes to.
  std::set<TopicPartition> all;
  for (const MemberSubscription* m : sorted) {
    out[m->member_id];
    for (const std::string& t : m->topics) {
      const auto count = partitions.find(t);
      if (count == partitions.end()) continue;
      for (int32_t p = 0; p < count->second; ++p) all.insert({t, p});
    }
  }
  const auto subscribed = [](const MemberSubscription& m, const std::string& topic) {
    return std::find(m.topics.begin(), m.topics.end(), topic) != m.topics.end();
  };
  const size_t n = sorted.size();
  const size_t min_quota = all.size() / n;
  size_t extra = all.size() % n;  // members that may hold min_quota + 1

  // Who owns what now (first claim wins; a partition claimed twice, which a
  // correct protocol never produces, goes to the first member by id).
  std::map<TopicPartition, std::string> owner;
  for (const MemberSubscription* m : sorted) {
    for (const TopicPartition& tp : m->owned) {
      if (all.count(tp) && subscribed(*m, tp.topic)) owner.emplace(tp, m->member_id);
    }
  }

  // Keep owned partitions up to the quota: min_quota for everybody first,
  // then one more for as many members as the remainder allows.
  std::set<TopicPartition> unassigned = all;
  std::map<std::string, std::vector<TopicPartition>> still_owned;
  for (const auto& [tp, id] : owner) still_owned[id].push_back(tp);
  for (const MemberSubscription* m : sorted) {
    std::vector<TopicPartition>& mine = still_owned[m->member_id];
    const size_t keep = std::min(mine.size(), min_quota);
    for (size_t i = 0; i < keep; ++i) {
      out[m->member_id].push_back(mine[i]);
      unassigned.erase(mine[i]);
    }
  }
  for (const MemberSubscription* m : sorted) {
    std::vector<TopicPartition>& mine = still_owned[m->member_id];
    if (extra > 0 && mine.size() > min_quota) {
      out[m->member_id].push_back(mine[min_quota]);
      unassigned.erase(mine[min_quota]);
      --extra;
    }
  }
  // The rest, each to the subscribed member with the fewest.
  for (const TopicPartition& tp : unassigned) {
    const MemberSubscription* best = nullptr;
    for (const MemberSubscription* m : sorted) {
      if (!subscribed(*m, tp.topic)) continue;
      if (best == nullptr || out[m->member_id].size() < out[best->member_id].size()) best = m;
    }
    if (best != nullptr) out[best->member_id].push_back(tp);
  }

  // Phase one of a move: a partition another member still owns is not
  // given to its new member in this generation; the owner revokes it and
  // rejoins, and the next assignment hands it over.
  for (auto& [id, parts] : out) {
    std::erase_if(parts, [&, &member = id](const TopicPartition& tp) {
      const auto o = owner.find(tp);
      return o != owner.end() && o->second != member;
    });
    std::sort(parts.begin(), parts.end());
  }
  return out;
}

}  // namespace spillway::assignors
