// ClusterHarness.
#include "cluster_harness.h"

#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <thread>

namespace spillway::testing {

namespace {

rd_kafka_t* new_client(const std::string& bootstrap) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), errstr, sizeof(errstr));
  rd_kafka_conf_set(conf, "log_level", "2", errstr, sizeof(errstr));
  return rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
}

}  // namespace

Result<std::unique_ptr<ClusterHarness>> ClusterHarness::start(Options options) {
  std::unique_ptr<ClusterHarness> h(new ClusterHarness());
  h->options_ = options;
  EtcdCluster::Options etcd_options;
  etcd_options.members = options.etcd_members;
  etcd_options.client_host = options.etcd_client_host;
  Result<std::unique_ptr<EtcdCluster>> etcd = EtcdCluster::start(etcd_options);
  if (!etcd.ok()) return etcd.status();
  h->etcd_ = std::move(*etcd);
  h->brokers_.resize(static_cast<size_t>(options.brokers));
  for (int i = 0; i < options.brokers; ++i) {
    h->brokers_[static_cast<size_t>(i)].dir = std::make_unique<TempDir>();
    if (Status st = h->start_broker(i); !st.ok()) return st;
  }
  if (!h->wait_brokers_known(options.brokers)) {
    return Status(ErrorCode::kTimeout, "the brokers never all saw each other through etcd");
  }
  return h;
}

ClusterHarness::~ClusterHarness() {
  for (Broker& b : brokers_) {
    if (b.process) (void)b.process->stop(SIGKILL);
  }
}

const std::filesystem::path& ClusterHarness::data_dir(int index) const {
  return brokers_[static_cast<size_t>(index)].dir->path();
}

Status ClusterHarness::start_broker(int index) {
  Broker& b = brokers_[static_cast<size_t>(index)];
  BrokerProcess::Options o;
  o.default_data_dir = false;
  o.args = {"--data-dir",
            b.dir->path().string(),
            "--node-id",
            std::to_string(id_of(index)),
            "--cluster-etcd-endpoints",
            etcd_->endpoints(),
            "--cluster-lease-ttl-ms",
            std::to_string(options_.lease_ttl_ms),
            "--cluster-replica-lag-time-max-ms",
            std::to_string(options_.replica_lag_time_max_ms),
            "--cluster-controlled-shutdown-timeout-ms",
            "10000",
            "--threads",
            "2"};
  for (const std::string& a : options_.broker_args) o.args.push_back(a);
  const size_t i = static_cast<size_t>(index);
  const std::string host = i < options_.broker_hosts.size() && !options_.broker_hosts[i].empty()
                               ? options_.broker_hosts[i]
                               : "127.0.0.1";
  if (i < options_.broker_netns.size() && !options_.broker_netns[i].empty()) {
    o.command_prefix = {"ip", "netns", "exec", options_.broker_netns[i]};
  }
  o.args.insert(o.args.end(), {"--listen", host + ":" + std::to_string(b.native_port),
                               "--kafka-listen", host + ":" + std::to_string(b.kafka_port)});
  Result<std::unique_ptr<BrokerProcess>> p = BrokerProcess::start(o);
  if (!p.ok()) return p.status();
  b.process = std::move(*p);
  b.native_port = b.process->port();
  b.kafka_port = b.process->kafka_port();
  return Status::Ok();
}

std::string ClusterHarness::stop_broker(int index, int signal) {
  Broker& b = brokers_[static_cast<size_t>(index)];
  if (!b.process) return "";
  if (signal == SIGSTOP || signal == SIGCONT) return "";
  ::kill(b.process->pid(), SIGCONT);  // a paused broker must be able to die
  Result<ProcessExit> exit = b.process->stop(signal, std::chrono::seconds(30));
  std::string out = exit.ok() ? exit->output : std::string(exit.status().message());
  b.process.reset();
  return out;
}

void ClusterHarness::pause_broker(int index) {
  ::kill(brokers_[static_cast<size_t>(index)].process->pid(), SIGSTOP);
}
void ClusterHarness::resume_broker(int index) {
  ::kill(brokers_[static_cast<size_t>(index)].process->pid(), SIGCONT);
}

std::string ClusterHarness::bootstrap() const {
  std::string out;
  for (const Broker& b : brokers_) {
    if (!b.process) continue;
    if (!out.empty()) out += ",";
    out += b.process->kafka_address();
  }
  return out;
}

std::string ClusterHarness::bootstrap_without(int index) const {
  std::string out;
  for (size_t i = 0; i < brokers_.size(); ++i) {
    if (!brokers_[i].process || static_cast<int>(i) == index) continue;
    if (!out.empty()) out += ",";
    out += brokers_[i].process->kafka_address();
  }
  return out;
}

std::vector<PartitionView> ClusterHarness::describe(const std::string& topic) const {
  return describe(topic, bootstrap());
}

std::vector<PartitionView> ClusterHarness::describe(const std::string& topic,
                                                    const std::string& servers) const {
  std::vector<PartitionView> out;
  if (servers.empty()) return out;
  rd_kafka_t* rk = new_client(servers);
  if (rk == nullptr) return out;
  rd_kafka_topic_t* t = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  if (rd_kafka_metadata(rk, 0, t, &md, 5'000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    for (int i = 0; i < md->topic_cnt; ++i) {
      const rd_kafka_metadata_topic_t& mt = md->topics[i];
      if (topic != mt.topic || mt.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
      out.resize(static_cast<size_t>(mt.partition_cnt));
      for (int p = 0; p < mt.partition_cnt; ++p) {
        const rd_kafka_metadata_partition_t& mp = mt.partitions[p];
        if (mp.id < 0 || mp.id >= mt.partition_cnt) continue;
        PartitionView& v = out[static_cast<size_t>(mp.id)];
        v.leader = mp.leader;
        v.replicas.assign(mp.replicas, mp.replicas + mp.replica_cnt);
        v.isr.assign(mp.isrs, mp.isrs + mp.isr_cnt);
      }
    }
    rd_kafka_metadata_destroy(md);
  }
  rd_kafka_topic_destroy(t);
  rd_kafka_destroy(rk);
  return out;
}

bool ClusterHarness::wait_for(const std::string& topic,
                              const std::function<bool(const PartitionView&)>& ok,
                              std::chrono::milliseconds guard) const {
  return wait_for(topic, "", ok, guard);
}

bool ClusterHarness::wait_for(const std::string& topic, const std::string& servers,
                              const std::function<bool(const PartitionView&)>& ok,
                              std::chrono::milliseconds guard) const {
  const auto deadline = std::chrono::steady_clock::now() + guard;
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<PartitionView> view = describe(topic, servers.empty() ? bootstrap() : servers);
    bool all = !view.empty();
    for (const PartitionView& p : view) all = all && ok(p);
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

bool ClusterHarness::wait_brokers_known(int count, std::chrono::milliseconds guard) const {
  const auto deadline = std::chrono::steady_clock::now() + guard;
  for (const Broker& b : brokers_) {
    if (!b.process) continue;
    for (;;) {
      int known = -1;
      // A client per attempt with this broker alone as bootstrap: its first
      // metadata request goes to this broker.
      if (rd_kafka_t* rk = new_client(b.process->kafka_address())) {
        const rd_kafka_metadata_t* md = nullptr;
        if (rd_kafka_metadata(rk, 0, nullptr, &md, 5'000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
          known = md->broker_cnt;
          rd_kafka_metadata_destroy(md);
        }
        rd_kafka_destroy(rk);
      }
      if (known >= count) break;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return true;
}

std::string ClusterHarness::report(const std::string& topic) const {
  std::string out = "metadata of " + topic + ":\n";
  std::vector<PartitionView> view = describe(topic);
  for (size_t p = 0; p < view.size(); ++p) {
    out +=
        "  partition " + std::to_string(p) + " leader " + std::to_string(view[p].leader) + " isr";
    for (int32_t id : view[p].isr) out += " " + std::to_string(id);
    out += "\n";
  }
  for (size_t i = 0; i < brokers_.size(); ++i) {
    if (!brokers_[i].process) continue;
    std::string log = brokers_[i].process->log();
    if (log.size() > 6000) log = log.substr(log.size() - 6000);
    out += "---- broker " + std::to_string(id_of(static_cast<int>(i))) + " ----\n" + log;
  }
  return out;
}

Status ClusterHarness::create_topic(
    const std::string& topic, int partitions, int replication,
    const std::vector<std::pair<std::string, std::string>>& configs) {
  rd_kafka_t* rk = new_client(bootstrap());
  if (rk == nullptr) return Status(ErrorCode::kUnknown, "no librdkafka client");
  char errstr[256];
  rd_kafka_NewTopic_t* nt =
      rd_kafka_NewTopic_new(topic.c_str(), partitions, replication, errstr, sizeof(errstr));
  for (const auto& [k, v] : configs) rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, nullptr, q);
  rd_kafka_NewTopic_destroy(nt);
  Status result(ErrorCode::kTimeout, "no CreateTopics result");
  for (int i = 0; i < 60; ++i) {
    rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 1'000);
    if (ev == nullptr) continue;
    if (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_CREATETOPICS_RESULT) {
      size_t n = 0;
      const rd_kafka_topic_result_t** results =
          rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
      if (rd_kafka_event_error(ev) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        result = Status(ErrorCode::kUnknown, rd_kafka_event_error_string(ev));
      } else if (n == 1 && rd_kafka_topic_result_error(results[0]) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* msg = rd_kafka_topic_result_error_string(results[0]);
        result = Status(ErrorCode::kUnknown, msg ? msg : "create failed");
      } else {
        result = Status::Ok();
      }
      rd_kafka_event_destroy(ev);
      break;
    }
    rd_kafka_event_destroy(ev);
  }
  rd_kafka_queue_destroy(q);
  rd_kafka_destroy(rk);
  return result;
}

}  // namespace spillway::testing
