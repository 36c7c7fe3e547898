// `spillway cluster describe`: the replicated cluster as the broker given
// with --broker sees it (spillway::Admin::describe_cluster): its brokers,
// the controller, and the partitions that are under-replicated or offline
// (every partition with --all).
#include <cstdio>
#include <string>

#include "commands.h"
#include "spillway/admin.h"

namespace spillway::cli {

namespace {

struct ClusterCommandOptions {
  std::string broker = kDefaultBroker;
  int timeout_ms = 10'000;
  bool all = false;
};

std::string ids(const std::vector<int32_t>& list) {
  std::string out;
  for (int32_t id : list) {
    if (!out.empty()) out += ",";
    out += std::to_string(id);
  }
  return out.empty() ? "-" : out;
}

int describe(const ClusterCommandOptions& o) {
  Result<Admin> admin = Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
  if (!admin.ok()) {
    std::fprintf(stderr, "spillway cluster describe: %s\n",
                 std::string(admin.status().message()).c_str());
    return 1;
  }
  Result<ClusterDescription> cluster = admin->describe_cluster();
  if (!cluster.ok()) {
    std::fprintf(stderr, "spillway cluster describe: %s\n",
                 std::string(cluster.status().message()).c_str());
    return 1;
  }
  size_t under = 0;
  size_t offline = 0;
  for (const ClusterPartition& p : cluster->partitions) {
    if (p.offline)
      ++offline;
    else if (p.under_replicated())
      ++under;
  }
  std::printf("controller: %s (epoch %lld)\n",
              cluster->controller_id < 0 ? "none" : std::to_string(cluster->controller_id).c_str(),
              static_cast<long long>(cluster->controller_epoch));
  std::printf("brokers: %zu\n", cluster->brokers.size());
  for (const ClusterBroker& b : cluster->brokers) {
    std::printf("  %d  native %s  kafka %s  rack %s  epoch %lld\n", b.id, b.native_address.c_str(),
                b.kafka_address.empty() ? "-" : b.kafka_address.c_str(),
                b.rack.empty() ? "-" : b.rack.c_str(), static_cast<long long>(b.epoch));
  }
  std::printf("partitions: %zu, under-replicated %zu, offline %zu\n", cluster->partitions.size(),
              under, offline);
  for (const ClusterPartition& p : cluster->partitions) {
    if (!o.all && !p.offline && !p.under_replicated()) continue;
    std::printf("  %s-%d  leader %s  epoch %d  replicas %s  isr %s%s\n", p.topic.c_str(),
                p.partition, p.leader < 0 ? "none" : std::to_string(p.leader).c_str(),
                p.leader_epoch, ids(p.replicas).c_str(), ids(p.isr).c_str(),
                p.offline ? "  OFFLINE" : (p.under_replicated() ? "  UNDER-REPLICATED" : ""));
  }
  return 0;
}

}  // namespace

void add_cluster_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ClusterCommandOptions>();
  CLI::App* cluster =
      app.add_subcommand("cluster", "a replicated cluster's brokers and partitions");
  cluster->require_subcommand(1);
  CLI::App* describe_cmd = cluster->add_subcommand(
      "describe", "brokers, controller, under-replicated and offline partitions");
  describe_cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")
      ->capture_default_str();
  describe_cmd->add_option("--timeout-ms", o->timeout_ms, "connect and response timeout")
      ->check(CLI::Range(1, 3'600'000))
      ->capture_default_str();
  describe_cmd->add_flag("--all", o->all, "list every partition, not only the unhealthy ones");
  describe_cmd->callback([o, exit_code] { *exit_code = describe(*o); });
}

}  // namespace spillway::cli
