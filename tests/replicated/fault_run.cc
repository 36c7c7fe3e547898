// Fault-run helpers.
#include "fault_run.h"

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "acked_producer.h"
#include "stored_producers.h"

namespace spillway::testing {

int fault_rounds(int default_rounds) {
  const char* env = std::getenv("SPILLWAY_SOAK_ROUNDS");
  if (env == nullptr || *env == '\0') return default_rounds;
  const int n = std::atoi(env);
  return n > 0 ? n : default_rounds;
}

bool wait_acked_more(const AckedProducer& producer, int64_t n, std::chrono::milliseconds guard) {
  const int64_t target = producer.acked() + n;
  const auto deadline = std::chrono::steady_clock::now() + guard;
  while (std::chrono::steady_clock::now() < deadline) {
    if (producer.acked() >= target) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

int leader_index(const ClusterHarness& cluster, const std::string& topic, int32_t p) {
  std::vector<PartitionView> view = cluster.describe(topic);
  if (static_cast<size_t>(p) >= view.size() || view[static_cast<size_t>(p)].leader < 1) return -1;
  return view[static_cast<size_t>(p)].leader - 1;
}

bool wait_healthy(const ClusterHarness& cluster, const std::string& topic, size_t isr,
                  std::chrono::milliseconds guard) {
  return cluster.wait_for(
      topic, [isr](const PartitionView& p) { return p.leader >= 1 && p.isr.size() >= isr; }, guard);
}

TopicContents read_back(const ClusterHarness& cluster, const std::string& topic,
                        int32_t partitions) {
  TopicContents contents = read_topic(cluster.bootstrap(), topic, partitions);
  if (!contents.error.empty()) return contents;
  for (int32_t p = 0; p < partitions; ++p) {
    const int leader = leader_index(cluster, topic, p);
    if (leader < 0) {
      contents.error = "partition " + std::to_string(p) + " has no leader to read batches from";
      return contents;
    }
    int64_t covered = 0;
    std::string error = annotate_producers(
        contents, p, cluster.data_dir(leader) / "topics" / topic / std::to_string(p), &covered);
    // Everything read is below the high watermark, so in the leader's log.
    const auto part = contents.partitions.find(p);
    const int64_t read =
        part == contents.partitions.end() ? 0 : static_cast<int64_t>(part->second.size());
    if (error.empty() && covered != read) {
      error = "partition " + std::to_string(p) + ": the leader's segment files hold " +
              std::to_string(covered) + " of the " + std::to_string(read) + " records read";
    }
    if (!error.empty()) {
      contents.error = error;
      return contents;
    }
  }
  return contents;
}

void print_totals(const std::string& name, const FaultTotals& t) {
  std::printf(
      "[fault-run] %s: rounds %d, records acknowledged %lld, lost %lld, duplicates %lld, "
      "out of order %lld, resent unacknowledged %lld%s%s\n",
      name.c_str(), t.rounds, static_cast<long long>(t.acked), static_cast<long long>(t.lost),
      static_cast<long long>(t.duplicates), static_cast<long long>(t.out_of_order),
      static_cast<long long>(t.resent),
      t.first_problem.empty() ? "" : "; first: ", t.first_problem.c_str());
  std::fflush(stdout);
}

}  // namespace spillway::testing
