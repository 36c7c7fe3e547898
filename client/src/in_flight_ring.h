// InFlightRing: the producer's requests outstanding on its connection, oldest
// first. Responses arrive in request order, so the oldest entry is the only
// one a response may answer; a fixed ring of max_in_flight slots (sized once,
// never grown) keeps tracking them allocation-free.
//
// Owned by the producer's I/O thread; its size is also read under the
// producer's mutex by that thread only.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "producer_state.h"

namespace spillway::producer_internal {

struct InFlight {
  int32_t correlation_id = 0;
  bool metadata = false;
  Batch* batches = nullptr;  // in request order
  Clock::time_point sent;
};

class InFlightRing {
 public:
  // `capacity` >= 1 (validated by Producer::create).
  explicit InFlightRing(std::size_t capacity) : slots_(capacity) {}

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }
  bool full() const { return size_ == slots_.size(); }

  // Appends `f` as the newest request. Precondition: !full().
  InFlight& push(const InFlight& f) {
    assert(!full());
    InFlight& slot = slots_[(head_ + size_) % slots_.size()];
    slot = f;
    ++size_;
    return slot;
  }
  // Forgets the newest request (it was never sent). Precondition: size() > 0.
  void drop_newest() { --size_; }

  // The i-th oldest request (0 = oldest). Precondition: i < size().
  const InFlight& at(std::size_t i) const { return slots_[(head_ + i) % slots_.size()]; }
  InFlight& newest() { return slots_[(head_ + size_ - 1) % slots_.size()]; }

  // Removes and returns the oldest request. Precondition: size() > 0.
  InFlight pop_oldest() {
    InFlight f = slots_[head_];
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return f;
  }

 private:
  std::vector<InFlight> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace spillway::producer_internal
