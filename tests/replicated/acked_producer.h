// A librdkafka producer (acks=all, idempotent) on its own thread that sends
// keyed records as fast as its in-flight window allows, until stopped, and
// remembers every record the cluster acknowledged: its partition, offset,
// key and value. The fault runs' checker (log_checker.h) compares that
// record of acknowledgements with what the cluster serves afterwards.
//
// Record i has key "k<i % keys>" and value "k<i % keys>:<i>", so per-key
// order is checkable from the values alone.
#pragma once

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace spillway::testing {

struct AckedRecord {
  int32_t partition = 0;
  int64_t offset = 0;
  std::string key;
  std::string value;
  std::chrono::steady_clock::time_point sent_at;  // handed to librdkafka
  std::chrono::steady_clock::time_point acked_at;
};

class AckedProducer {
 public:
  // `extra` librdkafka settings on top of acks=all, idempotence and a
  // message timeout long enough to ride out a failover.
  AckedProducer(const std::string& bootstrap, std::string topic, int keys = 16,
                std::vector<std::pair<std::string, std::string>> extra = {});
  // Stops the thread and flushes (bounded); records not acknowledged by
  // then are counted as failed, never as acknowledged.
  ~AckedProducer();
  AckedProducer(const AckedProducer&) = delete;
  AckedProducer& operator=(const AckedProducer&) = delete;

  void start();
  // Stops sending and waits (up to `guard`) for the outstanding records.
  void stop(std::chrono::milliseconds guard = std::chrono::seconds(60));

  int64_t acked() const { return acked_count_.load(); }
  int64_t failed() const { return failed_.load(); }
  std::string first_error() const;
  // Every acknowledged record so far (a copy).
  std::vector<AckedRecord> records() const;
  // When the first acknowledgement came of a record of partition
  // `partition` sent at or after `t` (false when none yet): a failover's
  // length seen by the producer, without the acknowledgements already in
  // flight at `t`.
  bool first_ack_after(std::chrono::steady_clock::time_point t, int32_t partition,
                       std::chrono::steady_clock::time_point* at) const;

 private:
  static void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque);
  void run();

  std::string topic_;
  int keys_;
  rd_kafka_t* rk_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> acked_count_{0};
  std::atomic<int64_t> failed_{0};
  mutable std::mutex mu_;
  std::vector<AckedRecord> records_;                            // under mu_
  std::vector<std::chrono::steady_clock::time_point> sent_at_;  // by sequence, under mu_
  std::string first_error_;                                     // under mu_
};

}  // namespace spillway::testing
