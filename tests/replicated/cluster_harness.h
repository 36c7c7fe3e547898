// Test support for the replicated cluster: a real etcd cluster and N real
// spillway-broker processes on 127.0.0.1 (ephemeral ports, a data
// directory per broker that outlives its restarts), each broker stopped,
// killed, paused and restarted by PID. What the cluster looks like is read
// the way a Kafka client reads it: Metadata through librdkafka.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "broker_process.h"
#include "etcd_cluster.h"
#include "spillway/common/status.h"

namespace spillway::testing {

// One partition as Kafka Metadata describes it.
struct PartitionView {
  int32_t leader = -1;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
};

class ClusterHarness {
 public:
  struct Options {
    int etcd_members = 3;
    int brokers = 3;
    int64_t lease_ttl_ms = 2'000;
    int64_t replica_lag_time_max_ms = 3'000;
    std::vector<std::string> broker_args;  // added to every broker's flags
    // For the partition runs (partition_faults_test.cc): etcd also listens
    // on etcd_client_host and the brokers reach it there; broker i listens
    // (and so advertises) on broker_hosts[i] and runs in the network
    // namespace broker_netns[i]. Empty or missing = 127.0.0.1 and this
    // process's namespace.
    std::string etcd_client_host;
    std::vector<std::string> broker_hosts;
    std::vector<std::string> broker_netns;
  };

  static Result<std::unique_ptr<ClusterHarness>> start(Options options);
  ~ClusterHarness();

  EtcdCluster& etcd() { return *etcd_; }
  int size() const { return static_cast<int>(brokers_.size()); }
  // Broker ids are 1..size(); index = id - 1.
  static int32_t id_of(int index) { return index + 1; }
  bool running(int index) const { return brokers_[static_cast<size_t>(index)].process != nullptr; }
  BrokerProcess& broker(int index) { return *brokers_[static_cast<size_t>(index)].process; }

  // Starts broker `index` (again) on its data directory.
  Status start_broker(int index);
  // Sends `signal` and waits for the process to end (SIGTERM: a controlled
  // shutdown; SIGKILL: a crash). Returns its output.
  std::string stop_broker(int index, int signal);
  void pause_broker(int index);   // SIGSTOP
  void resume_broker(int index);  // SIGCONT
  const std::filesystem::path& data_dir(int index) const;

  // Kafka bootstrap list of the running brokers.
  std::string bootstrap() const;

  // Metadata of `topic` through librdkafka (any running broker): one entry
  // per partition; empty when the topic is unknown or no broker answered.
  std::vector<PartitionView> describe(const std::string& topic) const;
  // The same through the brokers in `servers` only (a broker cut off from
  // etcd answers from the last snapshot it had).
  std::vector<PartitionView> describe(const std::string& topic, const std::string& servers) const;
  // Kafka bootstrap list of the running brokers but `index`.
  std::string bootstrap_without(int index) const;
  // Polls describe() until `ok` holds for every partition (true) or the
  // guard passes (false).
  bool wait_for(const std::string& topic, const std::function<bool(const PartitionView&)>& ok,
                std::chrono::milliseconds guard = std::chrono::seconds(60)) const;
  // The same, asking the brokers in `servers` only.
  bool wait_for(const std::string& topic, const std::string& servers,
                const std::function<bool(const PartitionView&)>& ok,
                std::chrono::milliseconds guard = std::chrono::seconds(60)) const;

  // For a failure message: the topic's metadata and the end of every
  // running broker's log.
  std::string report(const std::string& topic) const;

  // Polls each running broker's Kafka Metadata until it lists `count`
  // brokers (true) or the guard passes (false). A broker learns of the
  // others through etcd a little after it starts, and a topic created
  // before then is refused for its replication factor, as Kafka refuses it.
  bool wait_brokers_known(int count,
                          std::chrono::milliseconds guard = std::chrono::seconds(60)) const;

  // Creates `topic` through librdkafka's admin API.
  Status create_topic(const std::string& topic, int partitions, int replication,
                      const std::vector<std::pair<std::string, std::string>>& configs = {});

 private:
  struct Broker {
    std::unique_ptr<TempDir> dir;
    std::unique_ptr<BrokerProcess> process;
    // After the first start: a restart takes the same ports, so clients that
    // knew the broker find it again (as a real broker keeps its address).
    uint16_t native_port = 0;
    uint16_t kafka_port = 0;
  };
  ClusterHarness() = default;

  Options options_;
  std::unique_ptr<EtcdCluster> etcd_;
  std::vector<Broker> brokers_;
};

}  // namespace spillway::testing
