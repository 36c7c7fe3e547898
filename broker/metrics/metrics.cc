// Prometheus text rendering of the broker's metrics.
#include "metrics.h"

#include <cstdio>

#include "core/scrub_budget.h"
#include "core/topic_registry.h"
#include "net/sendfile_writer.h"
#include "replication/replication_throttle.h"
#include "spillway/common/frame.h"
#include "spillway/common/kafka/api_keys.h"
#include "spillway/storage/bounded_file_system.h"

// Defined by common/alloc_count/alloc_count.cc, linked into the broker when
// SPILLWAY_COUNT_ALLOCATIONS is on.
extern "C" __attribute__((weak)) uint64_t spillway_heap_allocation_count() noexcept;

namespace spillway::broker {

int64_t heap_allocations_total() noexcept {
  if (&spillway_heap_allocation_count == nullptr) return -1;
  return static_cast<int64_t>(spillway_heap_allocation_count());
}

void Metrics::record_request(Protocol protocol, int16_t api_key,
                             std::chrono::nanoseconds latency) noexcept {
  const std::span<Histogram> histograms = protocol == Protocol::kKafka
                                              ? std::span<Histogram>(kafka_latency_)
                                              : std::span<Histogram>(native_latency_);
  if (api_key < 0 || static_cast<size_t>(api_key) >= histograms.size()) return;
  Histogram& h = histograms[static_cast<size_t>(api_key)];
  const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(latency).count();
  size_t bucket = 0;
  while (bucket < kBucketsUs.size() && us > kBucketsUs[bucket]) ++bucket;
  h.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  h.count.fetch_add(1, std::memory_order_relaxed);
  h.sum_us.fetch_add(static_cast<uint64_t>(us), std::memory_order_relaxed);
}

namespace {
void line(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof(buf), fmt, args...);
  if (n > 0) out.append(buf, std::min<size_t>(static_cast<size_t>(n), sizeof(buf) - 1));
}

// An unlabelled counter with its HELP and TYPE lines.
void counter(std::string& out, const char* name, const char* help, uint64_t value) {
  line(out, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name,
       static_cast<unsigned long long>(value));
}
// An unlabelled gauge with its HELP and TYPE lines.
void gauge(std::string& out, const char* name, const char* help, uint64_t value) {
  line(out, "# HELP %s %s\n# TYPE %s gauge\n%s %llu\n", name, help, name, name,
       static_cast<unsigned long long>(value));
}
}  // namespace

void Metrics::render_latency(std::string& out, const char* protocol, const char* api,
                             const Histogram& h) {
  uint64_t cumulative = 0;
  for (size_t b = 0; b < kBucketsUs.size(); ++b) {
    cumulative += h.buckets[b].load();
    line(out,
         "spillway_request_latency_seconds_bucket{protocol=\"%s\",api=\"%s\",le=\"%g\"} %llu\n",
         protocol, api, static_cast<double>(kBucketsUs[b]) / 1e6,
         static_cast<unsigned long long>(cumulative));
  }
  cumulative += h.buckets[kBucketsUs.size()].load();
  line(out,
       "spillway_request_latency_seconds_bucket{protocol=\"%s\",api=\"%s\",le=\"+Inf\"} %llu\n",
       protocol, api, static_cast<unsigned long long>(cumulative));
  line(out, "spillway_request_latency_seconds_sum{protocol=\"%s\",api=\"%s\"} %g\n", protocol, api,
       static_cast<double>(h.sum_us.load()) / 1e6);
  line(out, "spillway_request_latency_seconds_count{protocol=\"%s\",api=\"%s\"} %llu\n", protocol,
       api, static_cast<unsigned long long>(h.count.load()));
}

std::string Metrics::render(const TopicRegistry& topics, const NetworkGauges& network) const {
  std::string out;
  out +=
      "# HELP spillway_connections Open client connections.\n# TYPE spillway_connections gauge\n";
  line(out, "spillway_connections %zu\n", network.connections);
  out +=
      "# HELP spillway_connections_moved_total Connections moved to the core that owns the "
      "partitions their requests name.\n# TYPE spillway_connections_moved_total counter\n";
  line(out, "spillway_connections_moved_total %llu\n",
       static_cast<unsigned long long>(network.connections_moved));
  out +=
      "# HELP spillway_memory_budget_bytes Bytes that requests and responses in flight may hold "
      "(limits.memory_budget_bytes).\n# TYPE spillway_memory_budget_bytes gauge\n";
  line(out, "spillway_memory_budget_bytes %llu\n",
       static_cast<unsigned long long>(network.memory_budget_bytes));
  out +=
      "# HELP spillway_memory_in_use_bytes Bytes that requests and responses in flight hold now.\n"
      "# TYPE spillway_memory_in_use_bytes gauge\n";
  line(out, "spillway_memory_in_use_bytes %llu\n",
       static_cast<unsigned long long>(network.memory_in_use_bytes));
  out +=
      "# HELP spillway_connections_paused Connections not read until responses are written or "
      "memory is given back: reason=\"max_in_flight\" have max_in_flight_per_connection "
      "requests unanswered, reason=\"connection_share\" hold their whole per-connection share "
      "of memory, reason=\"memory_budget\" wait for the broker-wide budget.\n"
      "# TYPE spillway_connections_paused gauge\n";
  line(out, "spillway_connections_paused{reason=\"max_in_flight\"} %lld\n",
       static_cast<long long>(network.connections_at_max_in_flight));
  line(out, "spillway_connections_paused{reason=\"connection_share\"} %llu\n",
       static_cast<unsigned long long>(network.connections_over_share));
  line(out, "spillway_connections_paused{reason=\"memory_budget\"} %llu\n",
       static_cast<unsigned long long>(network.connections_waiting_for_budget));

  const auto all = topics.snapshot();
  struct Counter {
    const char* name;
    const char* help;
    std::atomic<uint64_t> TopicCounters::*field;
  };
  const Counter counters[] = {
      {"spillway_topic_bytes_in_total", "Record batch bytes accepted by produce.",
       &TopicCounters::bytes_in},
      {"spillway_topic_messages_in_total", "Records accepted by produce.",
       &TopicCounters::messages_in},
      {"spillway_topic_bytes_out_total", "Record batch bytes sent by fetch.",
       &TopicCounters::bytes_out},
      {"spillway_topic_messages_out_total", "Records (offsets) sent by fetch.",
       &TopicCounters::messages_out},
  };
  for (const Counter& c : counters) {
    line(out, "# HELP %s %s\n# TYPE %s counter\n", c.name, c.help, c.name);
    for (const auto& topic : all) {
      line(out, "%s{topic=\"%s\"} %llu\n", c.name, topic->name.c_str(),
           static_cast<unsigned long long>((topic->counters.*c.field).load()));
    }
  }
  out +=
      "# HELP spillway_partition_log_bytes Bytes of a partition's log on disk.\n"
      "# TYPE spillway_partition_log_bytes gauge\n";
  for (const auto& topic : all) {
    for (const auto& p : topic->partitions) {
      line(out, "spillway_partition_log_bytes{topic=\"%s\",partition=\"%d\"} %llu\n",
           topic->name.c_str(), p->index().value(),
           static_cast<unsigned long long>(p->size_bytes()));
    }
  }
  out +=
      "# HELP spillway_partition_high_watermark Next offset readers may see.\n"
      "# TYPE spillway_partition_high_watermark gauge\n";
  for (const auto& topic : all) {
    for (const auto& p : topic->partitions) {
      line(out, "spillway_partition_high_watermark{topic=\"%s\",partition=\"%d\"} %lld\n",
           topic->name.c_str(), p->index().value(),
           static_cast<long long>(p->high_watermark().value()));
    }
  }
  out +=
      "# HELP spillway_partition_corrupt 1 when the partition's log is damaged on disk and it "
      "serves nothing until spillway-broker repair; 0 otherwise.\n"
      "# TYPE spillway_partition_corrupt gauge\n";
  for (const auto& topic : all) {
    for (const auto& p : topic->partitions) {
      line(out, "spillway_partition_corrupt{topic=\"%s\",partition=\"%d\"} %d\n",
           topic->name.c_str(), p->index().value(), p->corrupt() ? 1 : 0);
    }
  }
  // Replication (docs/replication.md): what this broker leads.
  {
    uint64_t led = 0;
    uint64_t under = 0;
    uint64_t shrinks = 0;
    uint64_t expands = 0;
    for (const auto& topic : all) {
      for (const auto& p : topic->partitions) {
        const Partition::ReplicationGauges g = p->replication_gauges();
        shrinks += g.isr_shrinks;
        expands += g.isr_expands;
        if (g.replicas == 0) continue;
        ++led;
        if (g.isr < g.replicas) ++under;
      }
    }
    gauge(out, "spillway_leader_partitions", "Partitions this broker leads (in a cluster).", led);
    gauge(out, "spillway_under_replicated_partitions",
          "Partitions this broker leads whose ISR is smaller than their replica set.", under);
    counter(out, "spillway_isr_shrinks_total",
            "ISR shrinks stored while this broker led the partition.", shrinks);
    counter(out, "spillway_isr_expands_total",
            "ISR expansions stored while this broker led the partition.", expands);
    out +=
        "# HELP spillway_partition_replica_lag_records Largest lag of an in-sync follower behind "
        "this leader's log end, in records (partitions this broker leads).\n"
        "# TYPE spillway_partition_replica_lag_records gauge\n";
    for (const auto& topic : all) {
      for (const auto& p : topic->partitions) {
        const Partition::ReplicationGauges g = p->replication_gauges();
        if (g.replicas == 0) continue;
        line(out, "spillway_partition_replica_lag_records{topic=\"%s\",partition=\"%d\"} %lld\n",
             topic->name.c_str(), p->index().value(), static_cast<long long>(g.max_lag));
      }
    }
  }
  // Partition moves (docs/operations.md, "Moving a partition").
  {
    const replication::ReplicationThrottle* t = replication_throttle_;
    gauge(out, "spillway_partition_reassignments",
          "Partition moves in progress in the cluster (as this broker's snapshot shows them).",
          t != nullptr ? t->ongoing() : 0);
    gauge(out, "spillway_replication_throttle_bytes_per_second",
          "Rate of this broker's reassignment throttle (0: unthrottled).",
          t != nullptr ? t->rate() : 0);
    counter(out, "spillway_replication_throttled_bytes_total",
            "Bytes this broker sent as a leader to replicas a move is adding, under the "
            "reassignment throttle.",
            t != nullptr ? t->throttled_bytes() : 0);
    counter(out, "spillway_replication_throttled_fetches_total",
            "Reads for replicas a move is adding that the reassignment throttle held back (the "
            "replica's fetch waited).",
            t != nullptr ? t->held() : 0);
  }
  if (log_files_ != nullptr) {
    gauge(out, "spillway_open_log_files",
          "Partition log and index files holding a descriptor now ([limits] max_open_log_files "
          "bounds them).",
          log_files_->open_files());
    gauge(out, "spillway_max_open_log_files", "The bound on open partition log and index files.",
          log_files_->max_open());
    counter(out, "spillway_log_file_reopens_total",
            "Log and index files reopened after the open-file bound closed them; a steady rise "
            "means the busy files outnumber the bound.",
            log_files_->reopens());
  }
  const SendfileCounters& sendfile = SendfileCounters::global();
  counter(out, "spillway_fetch_sendfile_bytes_total",
          "Fetched record bytes sent from the segment files with sendfile, without a copy "
          "(plaintext connections, slices of 16 KiB and more).",
          sendfile.bytes.load(std::memory_order_relaxed));
  counter(out, "spillway_fetch_sendfile_cut_short_total",
          "Connections closed because a segment file ended inside a fetch response being sent "
          "by sendfile (the log was truncated after the read).",
          sendfile.cut_short.load(std::memory_order_relaxed));
  const ScrubBudget& scrub = ScrubBudget::global();
  counter(out, "spillway_scrubbed_bytes_total",
          "Bytes of sealed segments the scrubber re-read and checked.", scrub.scrubbed_bytes());
  counter(out, "spillway_scrub_damaged_segments_total",
          "Sealed segments in which the scrubber found a damaged batch (each stops its "
          "partition: spillway_partition_corrupt).",
          scrub.damaged_segments());
  counter(out, "spillway_rejected_batches_total", "Produce batches that failed validation.",
          rejected_batches_.load());

  out +=
      "# HELP spillway_request_latency_seconds Time from a request's arrival to its response "
      "being ready, per protocol and api.\n# TYPE spillway_request_latency_seconds histogram\n";
  for (size_t api = 0; api < kNativeApis; ++api) {
    const char* name = frame::api_name(static_cast<int16_t>(api));
    if (name != nullptr) render_latency(out, "native", name, native_latency_[api]);
  }
  for (size_t api = 0; api < kKafkaApis; ++api) {
    const kafka::ApiInfo* info = kafka::find_api(static_cast<int16_t>(api));
    // Only APIs that were asked for: most described ones are never used.
    if (info != nullptr && kafka_latency_[api].count.load() > 0) {
      render_latency(out, "kafka", std::string(info->name).c_str(), kafka_latency_[api]);
    }
  }
  out +=
      "# HELP spillway_heap_allocations_total operator new calls in the broker process "
      "(-1: built without SPILLWAY_COUNT_ALLOCATIONS).\n"
      "# TYPE spillway_heap_allocations_total counter\n";
  line(out, "spillway_heap_allocations_total %lld\n",
       static_cast<long long>(heap_allocations_total()));
  return out;
}

}  // namespace spillway::broker
