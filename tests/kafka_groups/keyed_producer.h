// A librdkafka producer (acks=all, idempotent) on its own thread that sends
// keyed records "key-I" / "value-I", I = 0, 1, ..., as far as the test
// allows: a test raises the allowance phase by phase, so that every phase
// of the group's life gets records, and may also let it trickle at a steady
// rate in between (records arriving while members join, revoke, die).
#pragma once

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace spillway::testing {

class KeyedProducer {
 public:
  KeyedProducer(const std::string& bootstrap, std::string topic);
  // Waits for the thread; undelivered records are abandoned.
  ~KeyedProducer();
  KeyedProducer(const KeyedProducer&) = delete;
  KeyedProducer& operator=(const KeyedProducer&) = delete;

  // Lets the producer send records up to (not including) index `n`.
  void allow(int n) { allowed_.store(n); }
  // Raises the allowance by `n` records.
  void allow_more(int n) { allowed_.fetch_add(n); }
  int allowed() const { return allowed_.load(); }
  // From now on the allowance also grows by `per_second`, up to `limit`.
  void trickle(int per_second, int limit);

  // Waits (up to `guard`) until every allowed record is acknowledged.
  // True iff all were, none failed.
  bool wait_delivered(std::chrono::milliseconds guard);
  int delivered() const { return delivered_.load(); }
  int failed() const { return failed_.load(); }
  std::string first_error() const;

  static std::string key(int i) { return "key-" + std::to_string(i); }
  static std::string value(int i) { return "value-" + std::to_string(i); }

 private:
  static void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque);
  void run();

  std::string topic_;
  rd_kafka_t* rk_ = nullptr;
  std::atomic<int> allowed_{0};
  std::atomic<int> sent_{0};
  std::atomic<int> delivered_{0};
  std::atomic<int> failed_{0};
  std::atomic<int> first_error_{0};
  std::atomic<bool> stop_{false};
  // Written before the thread reads them through trickle_rate_.
  std::chrono::steady_clock::time_point trickle_start_;
  int trickle_base_ = 0;
  int trickle_limit_ = 0;
  std::atomic<int> trickle_rate_{0};
  std::thread thread_;
};

}  // namespace spillway::testing
