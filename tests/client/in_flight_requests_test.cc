// InFlightRequests on its own: responses answer the oldest request only, the
// fixed ring wraps without allocating, and the oldest request times out
// first.
#include "in_flight_requests.h"

#include <gtest/gtest.h>

#include "alloc_counter.h"

namespace spillway::producer_internal {
namespace {

using std::chrono::milliseconds;

InFlight produce(int32_t id, Clock::time_point sent = Clock::time_point()) {
  return {.correlation_id = id, .kind = RequestKind::kProduce, .sent = sent};
}

TEST(InFlightRequests, AResponseAnswersTheOldestRequestOnly) {
  InFlightRequests requests(3);
  requests.push(produce(1));
  requests.push({.correlation_id = 2, .kind = RequestKind::kMetadata});
  requests.push(produce(3));
  EXPECT_TRUE(requests.full());
  InFlight f;
  EXPECT_FALSE(requests.take_answered(2, &f));  // out of step: nothing is taken
  EXPECT_EQ(requests.size(), 3u);
  ASSERT_TRUE(requests.take_answered(1, &f));
  EXPECT_EQ(f.correlation_id, 1);
  ASSERT_TRUE(requests.take_answered(2, &f));
  EXPECT_EQ(f.kind, RequestKind::kMetadata);
  EXPECT_EQ(requests.size(), 1u);
  EXPECT_FALSE(InFlightRequests(1).take_answered(1, &f));  // none outstanding
}

TEST(InFlightRequests, AnUnsentRequestIsForgotten) {
  InFlightRequests requests(2);
  requests.push(produce(1));
  requests.push(produce(2));
  EXPECT_EQ(requests.newest().correlation_id, 2);
  requests.drop_newest();
  EXPECT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests.newest().correlation_id, 1);
}

TEST(InFlightRequests, TheRingWrapsAroundWithoutAllocating) {
  InFlightRequests requests(3);
  testing::AllocationScope scope;
  int32_t next = 1, expected = 1;
  for (int round = 0; round < 100; ++round) {
    while (!requests.full()) requests.push(produce(next++));
    for (int i = 0; i < 2; ++i) EXPECT_EQ(requests.pop_oldest().correlation_id, expected++);
  }
  EXPECT_EQ(scope.thread_allocations(), 0u);
  EXPECT_EQ(requests.capacity(), 3u);
}

TEST(InFlightRequests, TheOldestRequestTimesOutFirst) {
  InFlightRequests requests(4);
  EXPECT_EQ(requests.next_timeout(milliseconds(10)), Clock::time_point::max());
  const Clock::time_point t0 = Clock::now();
  requests.push(produce(1, t0));
  requests.push(produce(2, t0 + milliseconds(5)));
  EXPECT_EQ(requests.next_timeout(milliseconds(10)), t0 + milliseconds(10));
  requests.pop_oldest();
  EXPECT_EQ(requests.next_timeout(milliseconds(10)), t0 + milliseconds(15));
}

}  // namespace
}  // namespace spillway::producer_internal
