// Fault run (5) of issue 16: network partitions. Broker 1 runs in a network
// namespace this test creates (a veth pair, 10.x addresses derived from the
// PID); etcd and brokers 2 and 3 run here and listen on the veth's address
// of this side, so every party reaches every other one and all traffic stays
// on this machine. The cut is an nftables table in the namespace that drops
// the victim's traffic to and from the etcd members (a) or the other
// brokers' native listeners (b); clients keep reaching every broker. Heal =
// delete the table. Same checker as the other fault runs. Never skipped:
// without namespaces (not root, no ip or nft) the test fails and says why.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "acked_producer.h"
#include "cluster_harness.h"
#include "fault_run.h"
#include "log_checker.h"

namespace spillway::testing {
namespace {

constexpr int kPartitions = 3;
constexpr int64_t kBatch = 1'500;  // acknowledgements between steps
constexpr int kVictim = 0;         // broker id 1, the one in the namespace

std::string find_tool(const std::string& name) {
  for (const char* dir : {"/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"}) {
    const std::string path = dir + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

// A network namespace with a veth pair to this one: `inside` is the
// namespace's address, `outside` this side's. Removed (with the pair) on
// destruction, also when the test fails.
class Netns {
 public:
  Netns() {
    const unsigned pid = static_cast<unsigned>(::getpid());
    name_ = "spw-" + std::to_string(pid);
    veth_ = "spw" + std::to_string(pid);
    // A /30 per PID (PIDs below 2^22): 10.(64 + bits 14..19).(bits 6..13).(bits 0..5 * 4).
    const std::string net = "10." + std::to_string(64 + ((pid >> 14) & 0xff)) + "." +
                            std::to_string((pid >> 6) & 0xff) + ".";
    const unsigned base = (pid & 63u) * 4u;
    outside_ = net + std::to_string(base + 1);
    inside_ = net + std::to_string(base + 2);
  }
  ~Netns() { remove(); }
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;

  Status create() {
    ip_ = find_tool("ip");
    nft_ = find_tool("nft");
    if (ip_.empty() || nft_.empty()) {
      return Status(ErrorCode::kIoError,
                    "the partition runs need ip (iproute2) and nft (nftables): scripts/deps.txt");
    }
    remove();  // a leftover of a crashed run with the same PID
    const std::string a = veth_ + "a";
    const std::string b = veth_ + "b";
    const std::vector<std::vector<std::string>> steps = {
        {"netns", "add", name_},
        {"link", "add", a, "type", "veth", "peer", "name", b},
        {"link", "set", b, "netns", name_},
        {"addr", "add", outside_ + "/30", "dev", a},
        {"link", "set", a, "up"},
        {"netns", "exec", name_, ip_, "addr", "add", inside_ + "/30", "dev", b},
        {"netns", "exec", name_, ip_, "link", "set", b, "up"},
        {"netns", "exec", name_, ip_, "link", "set", "lo", "up"},
    };
    for (const std::vector<std::string>& step : steps) {
      if (Status st = run(ip_, step); !st.ok()) {
        return Status(ErrorCode::kIoError,
                      "cannot create the network namespace (the partition runs need root, "
                      "CAP_NET_ADMIN and CAP_SYS_ADMIN): " +
                          std::string(st.message()));
      }
    }
    created_ = true;
    return Status::Ok();
  }

  // Drops, in the namespace, what `out` and `in` match (nft rule bodies
  // without the verdict).
  Status cut(const std::vector<std::string>& out, const std::vector<std::string>& in) {
    std::string rules =
        "table inet spw_cut {\n  chain out {\n"
        "    type filter hook output priority 0; policy accept;\n";
    for (const std::string& r : out) rules += "    " + r + " drop\n";
    rules += "  }\n  chain in {\n    type filter hook input priority 0; policy accept;\n";
    for (const std::string& r : in) rules += "    " + r + " drop\n";
    rules += "  }\n}\n";
    const std::filesystem::path file = dir_.path() / "cut.nft";
    std::ofstream(file) << rules;
    return run(ip_, {"netns", "exec", name_, nft_, "-f", file.string()});
  }
  Status heal() {
    return run(ip_, {"netns", "exec", name_, nft_, "delete", "table", "inet", "spw_cut"});
  }

  const std::string& name() const { return name_; }
  const std::string& inside() const { return inside_; }
  const std::string& outside() const { return outside_; }

 private:
  static Status run(const std::string& binary, const std::vector<std::string>& args) {
    Result<ProcessExit> r = run_process(binary, args);
    if (!r.ok()) return r.status();
    if (r->exit_code != 0) {
      std::string cmd = binary;
      for (const std::string& a : args) cmd += " " + a;
      return Status(ErrorCode::kIoError, cmd + ": " + r->output);
    }
    return Status::Ok();
  }
  void remove() {
    if (ip_.empty()) return;
    (void)run(ip_, {"netns", "del", name_});
    (void)run(ip_, {"link", "del", veth_ + "a"});  // gone with the namespace, normally
    created_ = false;
  }

  std::string name_, veth_, inside_, outside_, ip_, nft_;
  bool created_ = false;
  TempDir dir_;
};

class PartitionFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = netns_.create();
    ASSERT_TRUE(st.ok()) << st.to_string();
    ClusterHarness::Options o;
    o.etcd_client_host = netns_.outside();
    o.broker_hosts = {netns_.inside(), netns_.outside(), netns_.outside()};
    o.broker_netns = {netns_.name(), "", ""};
    Result<std::unique_ptr<ClusterHarness>> c = ClusterHarness::start(o);
    ASSERT_TRUE(c.ok()) << c.status().to_string();
    cluster_ = std::move(*c);
  }

  void create(const std::string& topic) {
    Status created = cluster_->create_topic(
        topic, kPartitions, 3,
        {{"min.insync.replicas", "2"}, {"spillway.flush.policy", "interval"}});
    ASSERT_TRUE(created.ok()) << created.to_string() << "\n" << cluster_->report(topic);
    ASSERT_TRUE(wait_healthy(*cluster_, topic, 3)) << "the topic never got 3 in-sync replicas";
  }

  // A partition the victim leads (-1 when none).
  int victim_partition(const std::string& topic) const {
    std::vector<PartitionView> view = cluster_->describe(topic);
    for (size_t p = 0; p < view.size(); ++p) {
      if (view[p].leader == ClusterHarness::id_of(kVictim)) return static_cast<int>(p);
    }
    return -1;
  }

  // Waits until `producer` has an acknowledgement of `partition` after `t`.
  static bool wait_partition_acked(const AckedProducer& producer, int32_t partition,
                                   std::chrono::steady_clock::time_point t,
                                   std::chrono::milliseconds guard = std::chrono::seconds(120)) {
    const auto deadline = std::chrono::steady_clock::now() + guard;
    std::chrono::steady_clock::time_point at;
    while (std::chrono::steady_clock::now() < deadline) {
      if (producer.first_ack_after(t, partition, &at)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  bool wait_log(int index, const std::string& text,
                std::chrono::milliseconds guard = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + guard;
    while (std::chrono::steady_clock::now() < deadline) {
      if (cluster_->broker(index).log().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  void check(const std::string& name, const std::string& topic, AckedProducer& producer) {
    producer.stop();
    TopicContents contents = read_back(*cluster_, topic, kPartitions);
    ASSERT_TRUE(contents.error.empty()) << contents.error;
    CheckResult r = check_acked(producer.records(), contents);
    FaultTotals t{.rounds = 1,
                  .acked = r.acked,
                  .lost = r.lost,
                  .duplicates = r.duplicates,
                  .out_of_order = r.out_of_order,
                  .resent = r.resent,
                  .first_problem = r.first_problem};
    print_totals(name, t);
    EXPECT_GT(r.acked, 0);
    EXPECT_TRUE(r.ok()) << r.first_problem;
  }

  // "[fault-run] <what>: N ms after the cut" (timings for the closing notes).
  static void step(const char* what, std::chrono::steady_clock::time_point cut_at) {
    std::printf("[fault-run] %s: %lld ms after the cut\n", what,
                static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                           std::chrono::steady_clock::now() - cut_at)
                                           .count()));
    std::fflush(stdout);
  }

  // The partitions as Metadata shows them, then every broker's log.
  std::string logs() {
    std::string out;
    for (const std::string& topic : {std::string("cut-etcd"), std::string("cut-brokers")}) {
      std::vector<PartitionView> view = cluster_->describe(topic);
      for (size_t p = 0; p < view.size(); ++p) {
        out += topic + "-" + std::to_string(p) + ": leader " + std::to_string(view[p].leader) +
               ", ISR";
        for (int32_t id : view[p].isr) out += " " + std::to_string(id);
        out += "\n";
      }
    }
    for (int i = 0; i < cluster_->size(); ++i) {
      if (!cluster_->running(i)) continue;
      out += "--- broker " + std::to_string(ClusterHarness::id_of(i)) + " ---\n" +
             cluster_->broker(i).log();
    }
    return out;
  }

  Netns netns_;  // declared first: removed after the cluster has stopped
  std::unique_ptr<ClusterHarness> cluster_;
};

// (5a) A leader cut off from etcd only (the other brokers and clients still
// reach it): it cannot renew its lease, so the controller takes its
// registration as gone, moves its leaderships and takes it out of every
// ISR. It keeps fetching from the new leaders, who must not add it back
// while it is unregistered (KIP-841; before that rule the leaders and the
// controller undid each other's ISR writes for as long as the cut lasted).
// Healed, it registers again, catches up and every ISR is full. Nothing
// acknowledged is lost.
TEST_F(PartitionFaults, BrokerCutOffFromEtcd) {
  const std::string topic = "cut-etcd";
  ASSERT_NO_FATAL_FAILURE(create(topic));
  const int p = victim_partition(topic);
  ASSERT_GE(p, 0) << "broker 1 (in the namespace) leads no partition";
  AckedProducer producer(cluster_->bootstrap(), topic);
  producer.start();
  ASSERT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();

  std::string etcd_ports;
  for (int m = 0; m < cluster_->etcd().size(); ++m) {
    etcd_ports +=
        (etcd_ports.empty() ? "" : ", ") + std::to_string(cluster_->etcd().client_port(m));
  }
  const std::string peer = netns_.outside();
  Status st = netns_.cut({"ip daddr " + peer + " tcp dport { " + etcd_ports + " }"},
                         {"ip saddr " + peer + " tcp sport { " + etcd_ports + " }"});
  ASSERT_TRUE(st.ok()) << st.to_string();
  const auto cut_at = std::chrono::steady_clock::now();

  const int32_t victim = ClusterHarness::id_of(kVictim);
  auto without_victim = [victim](const PartitionView& v) {
    return v.leader >= 1 && v.leader != victim &&
           std::find(v.isr.begin(), v.isr.end(), victim) == v.isr.end();
  };
  // Asked through brokers 2 and 3: broker 1 answers Metadata from the last
  // snapshot it had before the cut.
  const std::string others = cluster_->bootstrap_without(kVictim);
  ASSERT_TRUE(cluster_->wait_for(topic, others, without_victim))
      << "broker 1 kept a leadership or an ISR place while cut off from etcd\n"
      << logs();
  const auto moved_at = std::chrono::steady_clock::now();
  step("broker 1 out of every leadership and ISR", cut_at);
  ASSERT_TRUE(wait_partition_acked(producer, p, moved_at))
      << "partition " << p << " never took writes under its new leader: " << producer.first_error();
  step("the victim's partition took writes under its new leader", cut_at);
  // While the cut lasts broker 1 stays out, though it still fetches.
  for (int i = 0; i < 20; ++i) {
    std::vector<PartitionView> view = cluster_->describe(topic, others);
    ASSERT_FALSE(view.empty());
    for (const PartitionView& v : view) {
      ASSERT_TRUE(without_victim(v)) << "broker 1 was back in an ISR while unregistered\n"
                                     << logs();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();

  st = netns_.heal();
  ASSERT_TRUE(st.ok()) << st.to_string();
  step("healed", cut_at);
  ASSERT_TRUE(wait_healthy(*cluster_, topic, 3)) << "the ISRs never grew back\n" << logs();
  step("3 in-sync replicas again", cut_at);
  ASSERT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();
  check("broker cut off from etcd", topic, producer);
}

// (5b) A leader cut off from the other brokers only (etcd and clients still
// reach it): its followers cannot fetch, so its ISR shrinks to itself (its
// ISR write still reaches etcd) and acks=all stalls on that partition below
// min.insync.replicas, while the partitions it follows go on with two
// replicas. Nothing acknowledged is lost; healed, every ISR is full again.
TEST_F(PartitionFaults, BrokerCutOffFromOtherBrokers) {
  const std::string topic = "cut-brokers";
  ASSERT_NO_FATAL_FAILURE(create(topic));
  const int p = victim_partition(topic);
  ASSERT_GE(p, 0) << "broker 1 (in the namespace) leads no partition";
  AckedProducer producer(cluster_->bootstrap(), topic);
  producer.start();
  ASSERT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();

  std::string others;
  for (int i = 0; i < cluster_->size(); ++i) {
    if (i == kVictim) continue;
    others += (others.empty() ? "" : ", ") + std::to_string(cluster_->broker(i).port());
  }
  const std::string own = std::to_string(cluster_->broker(kVictim).port());
  const std::string peer = netns_.outside();
  Status st = netns_.cut({"ip daddr " + peer + " tcp dport { " + others + " }",
                          "ip daddr " + peer + " tcp sport " + own},
                         {"ip saddr " + peer + " tcp sport { " + others + " }",
                          "ip saddr " + peer + " tcp dport " + own});
  ASSERT_TRUE(st.ok()) << st.to_string();
  const auto cut_at = std::chrono::steady_clock::now();

  // The partitions the victim follows go on; its own shrinks to itself.
  ASSERT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();
  step("more acknowledgements", cut_at);
  ASSERT_TRUE(cluster_->wait_for(
      topic, [](const PartitionView& v) { return v.leader >= 1 && v.isr.size() < 3; }))
      << "the ISRs never shrank while broker 1 was cut off\n"
      << logs();
  step("every ISR shrank", cut_at);

  st = netns_.heal();
  ASSERT_TRUE(st.ok()) << st.to_string();
  const auto healed_at = std::chrono::steady_clock::now();
  step("healed", cut_at);
  ASSERT_TRUE(wait_healthy(*cluster_, topic, 3)) << "the ISRs never grew back\n" << logs();
  step("3 in-sync replicas again", cut_at);
  ASSERT_TRUE(wait_partition_acked(producer, p, healed_at))
      << "partition " << p << " never took writes again: " << producer.first_error();
  step("the victim's partition took writes again", cut_at);
  ASSERT_TRUE(wait_acked_more(producer, kBatch)) << producer.first_error();
  check("broker cut off from the other brokers", topic, producer);
}

}  // namespace
}  // namespace spillway::testing
