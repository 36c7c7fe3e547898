// Metrics: the broker's counters and latency histograms, rendered in the
// Prometheus text format by the /metrics endpoint (metrics_server.h).
//
// Per-topic byte/message counters live in Topic (core/topic_registry.h) and
// per-partition log sizes in Partition; this class holds what is not per
// topic. Every update is a relaxed atomic add: safe from any core, no lock,
// no allocation.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace spillway::storage {
class BoundedFileSystem;
}  // namespace spillway::storage

namespace spillway::broker {

class TopicRegistry;
namespace replication {
class ReplicationThrottle;
}

// What the network layer reports, read when /metrics is rendered.
struct NetworkGauges {
  size_t connections = 0;
  uint64_t memory_budget_bytes = 0;  // protocol/memory_budget.h
  uint64_t memory_in_use_bytes = 0;
  uint64_t connections_waiting_for_budget = 0;  // the broker-wide budget is exhausted
  uint64_t connections_over_share = 0;          // hold their whole per-connection share
  int64_t connections_at_max_in_flight = 0;     // max_in_flight_per_connection unanswered
  uint64_t connections_moved = 0;  // to their partitions' core (Server::connections_moved)
};

// Heap allocations (operator new calls) made by this process so far, or -1
// when the binary was built without SPILLWAY_COUNT_ALLOCATIONS.
int64_t heap_allocations_total() noexcept;

class Metrics {
 public:
  // Upper bounds of the latency buckets, in microseconds (then +Inf).
  static constexpr std::array<int64_t, 14> kBucketsUs = {
      50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 1000000, 5000000};
  // Api keys are numbered per protocol; each has its own histograms.
  enum class Protocol : uint8_t { kNative, kKafka };
  static constexpr size_t kNativeApis = 32;
  static constexpr size_t kKafkaApis = 64;

  // One finished request of api `api_key` of `protocol` that took `latency`.
  void record_request(Protocol protocol, int16_t api_key,
                      std::chrono::nanoseconds latency) noexcept;
  void count_rejected_batch() noexcept {
    rejected_batches_.fetch_add(1, std::memory_order_relaxed);
  }

  // The reassignment throttle whose counters /metrics shows (a cluster's;
  // without one they show 0). Set before the endpoint serves; outlives it.
  void set_replication_throttle(const replication::ReplicationThrottle* throttle) {
    replication_throttle_ = throttle;
  }

  // The bounded file system of the partition logs, whose open files and
  // reopens /metrics shows. Set before the endpoint serves; outlives it.
  void set_log_files(const storage::BoundedFileSystem* files) { log_files_ = files; }

  // The whole exposition.
  std::string render(const TopicRegistry& topics, const NetworkGauges& network) const;

 private:
  struct Histogram {
    std::array<std::atomic<uint64_t>, kBucketsUs.size() + 1> buckets{};
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> sum_us{0};
  };
  // One histogram's lines, labelled protocol="..." and api="...".
  static void render_latency(std::string& out, const char* protocol, const char* api,
                             const Histogram& h);

  std::array<Histogram, kNativeApis> native_latency_;
  std::array<Histogram, kKafkaApis> kafka_latency_;
  std::atomic<uint64_t> rejected_batches_{0};
  const replication::ReplicationThrottle* replication_throttle_ = nullptr;
  const storage::BoundedFileSystem* log_files_ = nullptr;
};

}  // namespace spillway::broker
