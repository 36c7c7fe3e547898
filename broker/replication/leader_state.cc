// LeaderState: follower tracking, the high watermark and ISR proposals.
#include "replication/leader_state.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace spillway::broker::replication {

bool LeaderState::contains(const std::vector<BrokerId>& set, BrokerId id) {
  return std::find(set.begin(), set.end(), id) != set.end();
}

LeaderState::Follower* LeaderState::find(BrokerId id) {
  for (Follower& f : followers_) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

const LeaderState::Follower* LeaderState::find(BrokerId id) const {
  for (const Follower& f : followers_) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

void LeaderState::begin(BrokerId self, LeaderEpoch epoch, Offset epoch_start,
                        std::vector<BrokerId> replicas, std::vector<BrokerId> isr, Offset hw,
                        int64_t lag_max_ms, int64_t now_ms) {
  self_ = self;
  epoch_ = epoch;
  epoch_start_ = epoch_start;
  lag_max_ms_ = lag_max_ms;
  followers_.clear();
  for (BrokerId id : replicas) {
    if (id == self || find(id) != nullptr) continue;
    Follower f;
    f.id = id;
    // ISR members get a full lag period to fetch from the new leader; the
    // others have not been caught up as far as this term knows.
    f.last_caught_up_ms = contains(isr, id) ? now_ms : 0;
    followers_.push_back(f);
  }
  registered_ = replicas;
  isr_ = std::move(isr);
  if (!contains(isr_, self)) isr_.push_back(self);  // the leader is always in its ISR
  pending_.reset();
  hw_ = hw;
}

void LeaderState::set_replicas(const std::vector<BrokerId>& replicas) {
  std::vector<Follower> next;
  for (BrokerId id : replicas) {
    if (id == self_ ||
        std::any_of(next.begin(), next.end(), [&](const Follower& f) { return f.id == id; })) {
      continue;
    }
    const Follower* known = find(id);
    next.push_back(known != nullptr ? *known : Follower{.id = id});
  }
  followers_ = std::move(next);
}

bool LeaderState::record_fetch(BrokerId replica, Offset fetch_offset, Offset leader_end,
                               int64_t now_ms) {
  Follower* f = find(replica);
  if (f == nullptr) return false;
  if (fetch_offset >= leader_end) {
    f->last_caught_up_ms = std::max(f->last_caught_up_ms, now_ms);
  } else if (f->last_fetch_leader_end != kNoOffset && fetch_offset >= f->last_fetch_leader_end) {
    // Under steady produce the follower never reaches the moving end, but
    // it has everything the leader had at its previous fetch.
    f->last_caught_up_ms = std::max(f->last_caught_up_ms, f->last_fetch_ms);
  }
  f->end = fetch_offset;
  f->last_fetch_leader_end = leader_end;
  f->last_fetch_ms = now_ms;
  return true;
}

bool LeaderState::update_high_watermark(Offset leader_end) {
  Offset low = leader_end;
  auto counts = [&](BrokerId id) {
    return contains(isr_, id) || (pending_.has_value() && contains(*pending_, id));
  };
  for (const Follower& f : followers_) {
    if (!counts(f.id)) continue;
    if (f.end == kNoOffset) return false;  // not fetched yet in this term
    low = std::min(low, f.end);
  }
  if (low <= hw_) return false;
  hw_ = low;
  return true;
}

std::optional<std::vector<BrokerId>> LeaderState::propose_isr_change(int64_t now_ms) {
  if (pending_.has_value()) return std::nullopt;
  for (const Follower& f : followers_) {
    if (contains(isr_, f.id) || f.end == kNoOffset || !contains(registered_, f.id)) continue;
    // Caught up recently too: a replica that stopped fetching (whose last
    // known end may still look good) is not added back.
    if (f.end >= hw_ && f.end >= epoch_start_ && now_ms - f.last_caught_up_ms <= lag_max_ms_) {
      std::vector<BrokerId> grown = isr_;
      grown.push_back(f.id);
      pending_ = grown;
      return grown;
    }
  }
  std::vector<BrokerId> kept;
  kept.reserve(isr_.size());
  for (BrokerId id : isr_) {
    const Follower* f = find(id);
    if (id != self_ && f != nullptr && now_ms - f->last_caught_up_ms > lag_max_ms_) continue;
    kept.push_back(id);
  }
  if (kept.size() == isr_.size()) return std::nullopt;
  pending_ = kept;
  return kept;
}

// Older than any lag period, whatever the clock's origin.
constexpr int64_t kNeverCaughtUp = INT64_MIN / 2;

void LeaderState::isr_stored(std::vector<BrokerId> isr, int64_t now_ms) {
  for (BrokerId id : isr) {
    if (contains(isr_, id)) continue;
    if (Follower* f = find(id)) f->last_caught_up_ms = std::max(f->last_caught_up_ms, now_ms);
  }
  // A member removed (by this leader, or by the controller because its
  // broker is gone) joins again only after it fetched and caught up since:
  // what the leader knew of it before says nothing about a dead broker.
  for (BrokerId id : isr_) {
    if (contains(isr, id)) continue;
    if (Follower* f = find(id)) f->last_caught_up_ms = kNeverCaughtUp;
  }
  isr_ = std::move(isr);
  if (!contains(isr_, self_)) isr_.push_back(self_);
  pending_.reset();
}

Offset LeaderState::follower_end(BrokerId replica) const {
  const Follower* f = find(replica);
  return f == nullptr ? kNoOffset : f->end;
}

}  // namespace spillway::broker::replication
