// One fault run of the replicated cluster: a topic with replication factor
// 3, an AckedProducer producing with acks=all throughout, a fault injected
// (the test's `fault` callback) while it runs, and the checker at the end
// (log_checker.h). The totals go to stdout for the closing notes, and the
// run fails when any acknowledged record is lost, duplicated or reordered.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "cluster_harness.h"
#include "log_checker.h"

namespace spillway::testing {

struct FaultTotals {
  int rounds = 0;
  int64_t acked = 0;
  int64_t lost = 0;
  int64_t duplicates = 0;
  int64_t out_of_order = 0;
  int64_t resent = 0;  // CheckResult::resent
  std::string first_problem;
};

// Rounds of a fault test: SPILLWAY_SOAK_ROUNDS when set (the soak run),
// otherwise `default_rounds`.
int fault_rounds(int default_rounds);

// Waits until the producer has `n` more acknowledgements than now (false
// after the guard).
bool wait_acked_more(const class AckedProducer& producer, int64_t n,
                     std::chrono::milliseconds guard = std::chrono::seconds(120));

// Index of the broker leading partition `p` of `topic` (-1 when none).
int leader_index(const ClusterHarness& cluster, const std::string& topic, int32_t p);

// Every partition has a live leader and `isr` in-sync replicas.
bool wait_healthy(const ClusterHarness& cluster, const std::string& topic, size_t isr,
                  std::chrono::milliseconds guard = std::chrono::seconds(90));

// The topic as the cluster serves it (read_topic), each record annotated
// with the producer that stored it, from its partition leader's segment
// files (annotate_producers).
TopicContents read_back(const ClusterHarness& cluster, const std::string& topic,
                        int32_t partitions);

void print_totals(const std::string& name, const FaultTotals& totals);

}  // namespace spillway::testing
