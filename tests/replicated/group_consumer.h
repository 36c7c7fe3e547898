// A librdkafka KafkaConsumer in a consumer group, on its own thread: it
// subscribes, polls until stopped and remembers every record it was
// handed (partition, offset, value). Offsets are committed automatically
// (librdkafka's default, every 200 ms here). The group fault run checks
// what the group's members were handed together: every acknowledged record
// once, none twice.
#pragma once

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace spillway::testing {

struct ConsumedRecord {
  int32_t partition = 0;
  int64_t offset = 0;
  std::string value;
};

class GroupConsumer {
 public:
  // `reset`: librdkafka's auto.offset.reset, where a member starts on a
  // partition the group has no committed offset for.
  GroupConsumer(const std::string& bootstrap, const std::string& group, std::string topic,
                const std::string& reset = "earliest");
  // Stops (closes the consumer: it leaves the group) if still running.
  ~GroupConsumer();
  GroupConsumer(const GroupConsumer&) = delete;
  GroupConsumer& operator=(const GroupConsumer&) = delete;

  void start();
  void stop();

  // Commits `offset` for partitions 0..partitions-1 of `topic` for `group`
  // (a simple commit: the group has no members yet). The error, or "".
  static std::string commit_start(const std::string& bootstrap, const std::string& group,
                                  const std::string& topic, int partitions, int64_t offset);

  // Partitions assigned to this member now.
  int assigned() const { return assigned_.load(); }
  int64_t consumed() const { return consumed_.load(); }
  std::string first_error() const;
  std::vector<ConsumedRecord> records() const;

 private:
  void run();

  std::string topic_;
  rd_kafka_t* rk_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> assigned_{0};
  std::atomic<int64_t> consumed_{0};
  mutable std::mutex mu_;
  std::vector<ConsumedRecord> records_;  // under mu_
  std::string first_error_;              // under mu_
};

}  // namespace spillway::testing
