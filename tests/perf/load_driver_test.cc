// The load harness against in-memory fakes: every message is sent once,
// counts and errors reach the result, fixed-rate latency counts a stall
// against the messages it delayed, and end-to-end runs deliver everything.
#include "spillway/perf/load_driver.h"

#include <gtest/gtest.h>

#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "alloc_counter.h"
#include "spillway/perf/rate_schedule.h"

namespace spillway::perf {
namespace {

// A topic in memory: producers append, consumers pop (a consumer group).
struct FakeTopic {
  std::mutex mutex;
  std::deque<std::vector<std::byte>> messages;
  uint64_t appended = 0;
};

class FakeProducer : public PerfProducer {
 public:
  FakeProducer(AckRecorder& recorder, FakeTopic* topic) : recorder_(recorder), topic_(topic) {}
  std::string send(std::span<const std::byte> payload, uint64_t origin_ns) override {
    if (fail_after_ != 0 && sends_ == fail_after_) return "broker went away";
    if (stall_first_ms_ != 0 && sends_ == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(stall_first_ms_));
    ++sends_;
    if (topic_ != nullptr) {
      std::lock_guard lock(topic_->mutex);
      topic_->messages.emplace_back(payload.begin(), payload.end());
      ++topic_->appended;
    }
    recorder_.acked(origin_ns, true);
    return "";
  }
  std::string flush() override { return ""; }

  uint64_t sends_ = 0;
  uint64_t fail_after_ = 0;
  int stall_first_ms_ = 0;

 private:
  AckRecorder& recorder_;
  FakeTopic* topic_;
};

class FakeConsumer : public PerfConsumer {
 public:
  explicit FakeConsumer(FakeTopic* topic) : topic_(topic) {}
  std::string poll(int timeout_ms,
                   const std::function<void(std::span<const std::byte>)>& on_message) override {
    std::vector<std::vector<std::byte>> batch;
    {
      std::lock_guard lock(topic_->mutex);
      while (!topic_->messages.empty() && batch.size() < 64) {
        batch.push_back(std::move(topic_->messages.front()));
        topic_->messages.pop_front();
      }
    }
    if (batch.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    for (const auto& m : batch) on_message(m);
    return "";
  }

 private:
  FakeTopic* topic_;
};

ProducerFactory fake_producers(FakeTopic* topic, std::vector<FakeProducer*>* made,
                               uint64_t fail_after = 0, int stall_first_ms = 0) {
  return [=](uint32_t, AckRecorder& recorder, std::string*) {
    auto p = std::make_unique<FakeProducer>(recorder, topic);
    p->fail_after_ = fail_after;
    p->stall_first_ms_ = stall_first_ms;
    made->push_back(p.get());
    return std::unique_ptr<PerfProducer>(std::move(p));
  };
}

LoadPlan quiet_plan() {
  LoadPlan plan;
  plan.show_progress = false;
  plan.idle_timeout_ns = 200'000'000;
  return plan;
}

TEST(LoadDriver, StampRoundTrips) {
  std::vector<std::byte> payload(16);
  stamp_payload(payload, 0x0102030405060708ull);
  EXPECT_EQ(read_stamp(payload), 0x0102030405060708ull);
  std::vector<std::byte> tiny(7);
  stamp_payload(tiny, 99);  // too short: left alone, reads as 0
  EXPECT_EQ(read_stamp(tiny), 0u);
}

TEST(LoadDriver, ThroughputProduceSendsEveryMessageExactlyOnce) {
  FakeTopic topic;
  std::vector<FakeProducer*> made;
  LoadPlan plan = quiet_plan();
  plan.producers = 3;
  plan.messages = 10'001;
  plan.message_bytes = 64;
  const LoadOutcome out = run_produce(plan, fake_producers(&topic, &made));
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.result.messages, 10'001u);
  EXPECT_EQ(out.result.bytes, 10'001u * 64);
  EXPECT_EQ(out.result.errors, 0u);
  EXPECT_EQ(topic.appended, 10'001u);
  ASSERT_NE(out.result.latency, nullptr);
  EXPECT_EQ(out.result.latency->count(), 10'001u);
  EXPECT_EQ(out.result.mode, "produce");
  EXPECT_GT(out.result.elapsed_ns, 0u);
}

TEST(LoadDriver, DurationBoundRunStops) {
  FakeTopic topic;
  std::vector<FakeProducer*> made;
  LoadPlan plan = quiet_plan();
  plan.duration_ns = 30'000'000;
  const LoadOutcome out = run_produce(plan, fake_producers(&topic, &made));
  EXPECT_EQ(out.error, "");
  EXPECT_GT(out.result.messages, 0u);
  EXPECT_EQ(out.result.messages, topic.appended);
}

TEST(LoadDriver, FixedRateLatencyCountsAStallAgainstEveryDelayedMessage) {
  // 2,000 msg/s: message k is due at k * 0.5 ms. The producer stalls 60 ms
  // on its first send, so messages 0..100 go out at >= 60 ms and at least
  // messages 0..80 are >= 20 ms late. Measured from the actual send time
  // (coordinated omission) only message 0 would look slow.
  FakeTopic topic;
  std::vector<FakeProducer*> made;
  LoadPlan plan = quiet_plan();
  plan.rate = 2'000;
  plan.messages = 200;
  const LoadOutcome out = run_produce(plan, fake_producers(&topic, &made, 0, 60));
  EXPECT_EQ(out.error, "");
  ASSERT_EQ(out.result.latency->count(), 200u);
  // The top 81 of 200 values are >= 20 ms, so rank 120 (p60) is too.
  EXPECT_GE(out.result.latency->value_at_percentile(60), 20'000'000u);
  EXPECT_EQ(out.result.target_rate, 2'000u);
  EXPECT_EQ(out.result.latency_origin.rfind("intended send time", 0), 0u);
}

TEST(LoadDriver, ProducerErrorStopsTheRunAndIsReported) {
  FakeTopic topic;
  std::vector<FakeProducer*> made;
  LoadPlan plan = quiet_plan();
  plan.messages = 1'000'000;
  const LoadOutcome out = run_produce(plan, fake_producers(&topic, &made, 10));
  EXPECT_EQ(out.error, "producer 0: broker went away");
  EXPECT_EQ(out.result.messages, 10u);
}

TEST(LoadDriver, FactoryFailureIsReported) {
  LoadPlan plan = quiet_plan();
  plan.messages = 10;
  const LoadOutcome out = run_produce(plan, [](uint32_t, AckRecorder&, std::string* error) {
    *error = "connection refused";
    return std::unique_ptr<PerfProducer>();
  });
  EXPECT_EQ(out.error, "producer 0: connection refused");
  EXPECT_EQ(out.result.messages, 0u);
}

TEST(LoadDriver, ConsumeDrainsTheTopicThenStopsWhenIdle) {
  FakeTopic topic;
  for (int i = 0; i < 500; ++i) topic.messages.emplace_back(100);
  LoadPlan plan = quiet_plan();
  plan.consumers = 2;
  plan.message_bytes = 100;
  const LoadOutcome out = run_consume(
      plan, [&](uint32_t, std::string*) { return std::make_unique<FakeConsumer>(&topic); });
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.result.messages, 500u);
  EXPECT_EQ(out.result.bytes, 50'000u);
  EXPECT_EQ(out.result.latency, nullptr);  // stored messages carry old stamps
}

// Issue 11 (8): MB/s of consume came from --size, not from what was read.
TEST(LoadDriver, ConsumeCountsTheBytesItReadNotTheConfiguredSize) {
  FakeTopic topic;
  for (int i = 0; i < 300; ++i) topic.messages.emplace_back(i % 2 == 0 ? 100 : 300);
  LoadPlan plan = quiet_plan();
  plan.message_bytes = 1;  // --size: says nothing about the stored messages
  const LoadOutcome out = run_consume(
      plan, [&](uint32_t, std::string*) { return std::make_unique<FakeConsumer>(&topic); });
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.result.messages, 300u);
  EXPECT_EQ(out.result.bytes, 150u * 100 + 150u * 300);
  EXPECT_EQ(out.result.message_bytes, 200u);  // their average
}

TEST(LoadDriver, EndToEndDeliversEveryMessageAndMeasuresEach) {
  FakeTopic topic;
  std::vector<FakeProducer*> made;
  LoadPlan plan = quiet_plan();
  plan.producers = 2;
  plan.consumers = 2;
  plan.messages = 3'000;
  plan.rate = 100'000;
  plan.message_bytes = 32;
  const LoadOutcome out = run_end_to_end(
      plan, fake_producers(&topic, &made),
      [&](uint32_t, std::string*) { return std::make_unique<FakeConsumer>(&topic); });
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.result.messages, 3'000u);
  ASSERT_NE(out.result.latency, nullptr);
  EXPECT_EQ(out.result.latency->count(), 3'000u);
  EXPECT_EQ(out.result.mode, "e2e");
}

// Counts the sending thread's heap allocations between its first and its
// last send: what the harness's own loop allocates per message. The counts
// live in the test (the harness destroys its producers before returning).
struct SendCounts {
  uint64_t sends = 0, first = 0, last = 0;
};

class CountingProducer : public PerfProducer {
 public:
  CountingProducer(AckRecorder& recorder, SendCounts* counts)
      : recorder_(recorder), counts_(counts) {}
  std::string send(std::span<const std::byte>, uint64_t origin_ns) override {
    const uint64_t now = spillway::testing::thread_allocation_count();
    if (counts_->sends++ == 0) counts_->first = now;
    counts_->last = now;
    recorder_.acked(origin_ns, true);
    return "";
  }
  std::string flush() override { return ""; }

 private:
  AckRecorder& recorder_;
  SendCounts* counts_;
};

TEST(LoadDriver, SendLoopAllocatesNothingPerMessage) {
  for (uint64_t rate : {uint64_t{0}, uint64_t{200'000}}) {
    SendCounts counts;
    LoadPlan plan = quiet_plan();
    plan.messages = 20'000;
    plan.rate = rate;
    const LoadOutcome out = run_produce(plan, [&](uint32_t, AckRecorder& recorder, std::string*) {
      return std::unique_ptr<PerfProducer>(std::make_unique<CountingProducer>(recorder, &counts));
    });
    ASSERT_EQ(out.error, "");
    EXPECT_EQ(out.result.messages, 20'000u);
    EXPECT_EQ(out.result.latency->count(), 20'000u);
    EXPECT_EQ(counts.sends, 20'000u);
    EXPECT_EQ(counts.last - counts.first, 0u) << "rate " << rate;
  }
}

}  // namespace
}  // namespace spillway::perf
