// Rendezvous hashing of consumer groups over the live brokers.
#include "group_placement.h"

#include "stable_hash.h"

namespace spillway::broker::cluster {

namespace {

// SplitMix64's finaliser: spreads the group hash combined with a broker id
// over all 64 bits, so neighbouring ids score independently.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

}  // namespace

BrokerId group_coordinator(const ClusterSnapshot& snapshot, std::string_view group) {
  const uint64_t g = stable_hash(group);
  BrokerId best = kNoBroker;
  uint64_t best_score = 0;
  for (const auto& [id, info] : snapshot.brokers) {
    const uint64_t score = mix(g ^ mix(static_cast<uint64_t>(static_cast<uint32_t>(id))));
    // Ties (never seen in practice) go to the lower id: brokers iterate in id order.
    if (best == kNoBroker || score > best_score) {
      best = id;
      best_score = score;
    }
  }
  return best;
}

}  // namespace spillway::broker::cluster
