// Members of the consumer group "workers" on topic "events" for the
// consumer-group tests, against whichever broker they are given: in-process
// Consumer::subscribe members polling on threads of their own, what they
// observed, and a keyed producer. Used by tests/integration's (a broker
// process they restart and kill) and tests/embedded's (EmbeddedBroker).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing::group_members {

using std::chrono::milliseconds;

constexpr char kTopic[] = "events";
constexpr char kGroup[] = "workers";
constexpr int kPartitions = 6;
constexpr auto kSession = milliseconds(1'500);

// What the in-process members saw, shared with the test's thread.
struct Observed {
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::string> processed;                        // record values
  std::map<int, std::vector<TopicPartition>> assignment;  // member -> partitions

  // Waits for `pred()` (called under the lock); false after a minute.
  template <typename Pred>
  bool wait_for(Pred pred) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(60), pred);
  }
};

// A subscribed consumer polling on its own thread: records processed,
// positions committed after every poll (a member processes a poll's records
// before it commits, so what is committed was processed).
class Member {
 public:
  Member(int id, std::string address, Observed& observed,
         GroupAssignor assignor = GroupAssignor::kCooperativeSticky,
         milliseconds rebalance_timeout = milliseconds(10'000))
      : id_(id), assignor_(assignor), rebalance_timeout_(rebalance_timeout), observed_(observed) {
    thread_ = std::thread([this, address = std::move(address)] { run(address); });
  }
  ~Member() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Stops (or resumes) calling poll(), as an application busy elsewhere.
  void pause(bool paused) { paused_ = paused; }

 private:
  void run(const std::string& address) {
    ConsumerOptions o;
    o.bootstrap = address;
    o.group_id = kGroup;
    o.session_timeout = kSession;
    o.heartbeat_interval = milliseconds(300);
    o.rebalance_timeout = rebalance_timeout_;
    o.fetch_max_wait = milliseconds(100);
    o.connect_timeout = milliseconds(1'000);
    o.request_timeout = milliseconds(3'000);
    o.assignor = assignor_;
    // create() connects: while the broker is down (restarting), retry.
    auto created = Consumer::create(o);
    while (!created.ok() && created.status().code() == ErrorCode::kNotConnected && !stop_) {
      std::this_thread::sleep_for(milliseconds(50));  // pacing, not a wait for state
      created = Consumer::create(o);
    }
    if (stop_ && !created.ok()) return;
    ASSERT_TRUE(created.ok()) << created.status().to_string();
    Consumer& consumer = **created;
    ASSERT_TRUE(consumer.subscribe({kTopic}).ok());
    while (!stop_) {
      if (paused_) {
        std::this_thread::sleep_for(milliseconds(20));  // pacing, not a wait for state
        continue;
      }
      Result<ConsumerRecords> records = consumer.poll(milliseconds(100));
      if (!records.ok()) {
        // The broker is restarting: the next poll reconnects (pacing, not
        // a wait for state).
        std::this_thread::sleep_for(milliseconds(50));
        continue;
      }
      {
        std::lock_guard lock(observed_.mu);
        for (const ConsumerRecord& r : *records) observed_.processed.emplace(r.value_string());
        observed_.assignment[id_] = consumer.assignment();
      }
      observed_.cv.notify_all();
      if (!records->empty()) (void)consumer.commit();
    }
    (void)consumer.commit();
    EXPECT_TRUE(consumer.close().ok());
    std::lock_guard lock(observed_.mu);
    observed_.assignment.erase(id_);
  }

  const int id_;
  const GroupAssignor assignor_;
  const milliseconds rebalance_timeout_;
  Observed& observed_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> paused_{false};
  std::thread thread_;
};

inline std::string value_of(int i) {
  return "v" + std::to_string(i);
}

// Produces records [first, last) with keys spread over the partitions.
inline void produce(const std::string& address, int first, int last) {
  ProducerOptions o;
  o.bootstrap = address;
  auto producer = Producer::create(o);
  ASSERT_TRUE(producer.ok()) << producer.status().to_string();
  for (int i = first; i < last; ++i) {
    const std::string key = "k" + std::to_string(i % 97);
    const std::string value = value_of(i);
    (*producer)->send(kTopic, std::as_bytes(std::span(key.data(), key.size())),
                      std::as_bytes(std::span(value.data(), value.size())), {}, {});
  }
  ASSERT_TRUE((*producer)->flush().ok());
  ASSERT_TRUE((*producer)->close().ok());
}

// The members' assignments are disjoint and hold `covered` partitions in
// all, each member `each` (when > 0).
inline bool shares(const Observed& o, size_t members, size_t covered, size_t each = 0) {
  if (o.assignment.size() != members) return false;
  std::set<TopicPartition> seen;
  for (const auto& [id, parts] : o.assignment) {
    if (each > 0 && parts.size() != each) return false;
    for (const TopicPartition& tp : parts) {
      if (!seen.insert(tp).second) return false;
    }
  }
  return seen.size() == covered;
}

}  // namespace spillway::testing::group_members
