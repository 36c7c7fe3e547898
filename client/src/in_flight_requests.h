// InFlightRequests: the producer's requests outstanding on one connection,
// oldest first.
//
// Owns: a fixed ring of `capacity` slots (max_in_flight), sized once and
// never grown, so tracking requests allocates nothing. A slot names the
// batches its Produce request carries (which stay owned by the
// RecordAccumulator) or marks a Metadata or InitProducerId request.
//
// Invariants: requests are answered in the order they were sent (the
// broker answers one connection's requests in order), so a response can
// only answer the oldest request; one that does not is a connection out of
// step. Send times never decrease, so the oldest request is the first to
// time out.
//
// Concurrency: owned by the producer's I/O thread; not thread-safe.
#pragma once

#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "producer_batch.h"

namespace spillway::producer_internal {

enum class RequestKind : uint8_t { kProduce, kMetadata, kInitProducerId, kDescribeCluster };

struct InFlight {
  int32_t correlation_id = 0;
  RequestKind kind = RequestKind::kProduce;
  Batch* batches = nullptr;  // a Produce request's, in request order
  Clock::time_point sent{};
};

class InFlightRequests {
 public:
  // `capacity` >= 1 (validated by Producer::create).
  explicit InFlightRequests(std::size_t capacity) : slots_(capacity) {}

  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return slots_.size(); }
  bool empty() const noexcept { return size_ == 0; }
  bool full() const noexcept { return size_ == slots_.size(); }

  // Appends `f` as the newest request. Precondition: !full().
  InFlight& push(const InFlight& f) {
    assert(!full());
    InFlight& slot = slots_[(head_ + size_) % slots_.size()];
    slot = f;
    ++size_;
    return slot;
  }
  // Forgets the newest request (it was never sent). Precondition: !empty().
  void drop_newest() {
    assert(!empty());
    --size_;
  }
  // The newest request. Precondition: !empty().
  InFlight& newest() { return slots_[(head_ + size_ - 1) % slots_.size()]; }

  // Takes the request a response with `correlation_id` answers into *out:
  // the oldest. False, changing nothing, when no request is outstanding or
  // the oldest has another id.
  bool take_answered(int32_t correlation_id, InFlight* out) {
    if (empty() || slots_[head_].correlation_id != correlation_id) return false;
    *out = pop_oldest();
    return true;
  }
  // Removes and returns the oldest request. Precondition: !empty().
  InFlight pop_oldest() {
    assert(!empty());
    InFlight f = slots_[head_];
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return f;
  }

  // When the oldest request has waited `timeout`: time_point::max() when
  // none is outstanding.
  Clock::time_point next_timeout(std::chrono::milliseconds timeout) const noexcept {
    return empty() ? Clock::time_point::max() : slots_[head_].sent + timeout;
  }

 private:
  std::vector<InFlight> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace spillway::producer_internal
