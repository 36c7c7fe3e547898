// Moving partitions between brokers end to end (docs/operations.md,
// "Moving a partition"): three etcd members and three real brokers, the
// real `spillway partition reassign` CLI, and the records read back through
// the broker the partition moved to. The throttle: a move with a small one
// stays in progress while the leader counts throttled bytes, a cancel goes
// back to the replicas it started from, and lifting the throttle lets the
// move finish. The CLI's errors: unknown brokers, topics, partitions, a
// cancel of nothing, a standalone broker.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "acked_producer.h"
#include "broker_wire_client.h"
#include "cluster_harness.h"
#include "log_checker.h"
#include "spillway/admin.h"

namespace spillway::testing {
namespace {

using Ids = std::vector<int32_t>;

std::string joined(const Ids& ids) {
  std::string out;
  for (int32_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

// `spillway ARGS...` against broker `index`'s native listener.
ProcessExit cli(ClusterHarness& cluster, int index, std::vector<std::string> args,
                std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
  args.push_back("--broker");
  args.push_back(cluster.broker(index).address());
  Result<ProcessExit> run = run_process(cli_binary(), args, timeout);
  EXPECT_TRUE(run.ok()) << run.status().to_string();
  return run.ok() ? *run : ProcessExit{};
}

// The cluster with /metrics on every broker, and a topic of one partition
// with two replicas, both in sync.
struct Moving {
  std::unique_ptr<ClusterHarness> cluster;
  Ids replicas;   // partition 0's, preferred leader first
  int32_t spare;  // the broker that holds no replica of it
};

Moving start_with_topic(const std::string& topic) {
  ClusterHarness::Options options;
  options.broker_args = {"--metrics-listen", "127.0.0.1:0"};
  Result<std::unique_ptr<ClusterHarness>> started = ClusterHarness::start(options);
  EXPECT_TRUE(started.ok()) << started.status().to_string();
  if (!started.ok()) return {};
  Moving m{std::move(*started), {}, -1};
  EXPECT_TRUE(m.cluster->create_topic(topic, 1, 2).ok());
  EXPECT_TRUE(m.cluster->wait_for(topic, [](const PartitionView& p) {
    return p.leader >= 1 && p.isr.size() == 2;
  })) << m.cluster->report(topic);
  const std::vector<PartitionView> view = m.cluster->describe(topic);
  if (view.size() != 1) {
    ADD_FAILURE() << m.cluster->report(topic);
    return {};
  }
  m.replicas = view[0].replicas;
  for (int i = 0; i < m.cluster->size(); ++i) {
    const int32_t id = ClusterHarness::id_of(i);
    if (std::find(m.replicas.begin(), m.replicas.end(), id) == m.replicas.end()) m.spare = id;
  }
  return m;
}

// Writes `count` records of `value_bytes` each to partition 0 with
// acks=all, in small batches, and waits for every acknowledgement.
int64_t produce_bulk(const std::string& bootstrap, const std::string& topic, int count,
                     size_t value_bytes) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstrap},
                                                        {"acks", "all"},
                                                        {"batch.size", "16384"},
                                                        {"linger.ms", "5"},
                                                        {"log_level", "3"}}) {
    EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof(errstr)),
              RD_KAFKA_CONF_OK)
        << k << ": " << errstr;
  }
  int64_t acked = 0;
  rd_kafka_conf_set_opaque(conf, &acked);
  rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) ++*static_cast<int64_t*>(opaque);
  });
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  if (rk == nullptr) {
    ADD_FAILURE() << errstr;
    return 0;
  }
  const std::string value(value_bytes, 'v');
  for (int i = 0; i < count; ++i) {
    const std::string key = "k" + std::to_string(i);
    while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                             RD_KAFKA_V_KEY(key.data(), key.size()),
                             RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                             RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(rk, 50);
    }
    rd_kafka_poll(rk, 0);
  }
  rd_kafka_flush(rk, 60'000);
  rd_kafka_destroy(rk);
  return acked;
}

// The moves in progress, as broker `index` lists them (empty on error,
// with a test failure).
std::vector<OngoingReassignment> moves(ClusterHarness& cluster, int index) {
  Result<Admin> admin = Admin::connect(cluster.broker(index).address());
  if (!admin.ok()) {
    ADD_FAILURE() << admin.status().to_string();
    return {};
  }
  Result<std::vector<OngoingReassignment>> list = admin->list_partition_reassignments();
  if (!list.ok()) {
    ADD_FAILURE() << list.status().to_string();
    return {};
  }
  return *list;
}

int64_t throttled_bytes(ClusterHarness& cluster, int index) {
  return metric(scrape(metrics_port(cluster.broker(index))),
                "spillway_replication_throttled_bytes_total");
}

TEST(Reassign, TheCliMovesAPartitionAndItsRecordsToAnotherBroker) {
  const std::string topic = "moved";
  Moving m = start_with_topic(topic);
  ASSERT_NE(m.cluster, nullptr);
  ClusterHarness& cluster = *m.cluster;
  const int32_t a = m.replicas[0], b = m.replicas[1], c = m.spare;
  ASSERT_GE(c, 1);

  AckedProducer producer(cluster.bootstrap(), topic);
  producer.start();
  while (producer.acked() < 3'000 && producer.failed() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  producer.stop();
  ASSERT_EQ(producer.failed(), 0) << producer.first_error();

  // Asked of the broker that is neither replica before nor after.
  const Ids target{b, c};
  const ProcessExit run = cli(cluster, a - 1,
                              {"partition", "reassign", "--topic", topic, "--partition", "0",
                               "--replicas", joined(target), "--wait", "--poll-ms", "100"});
  ASSERT_EQ(run.exit_code, 0) << run.output << cluster.report(topic);
  EXPECT_NE(run.output.find(topic + "-0: reassigning to replicas " + joined(target)),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find(topic + "-0: done: replicas " + joined(target)), std::string::npos)
      << run.output;

  EXPECT_TRUE(cluster.wait_for(topic, [&](const PartitionView& p) { return p.replicas == target; }))
      << cluster.report(topic);
  EXPECT_TRUE(moves(cluster, c - 1).empty());
  const ProcessExit list = cli(cluster, b - 1, {"partition", "reassignments"});
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("no partition moves in progress"), std::string::npos) << list.output;

  // The new replica holds every acknowledged record: stop the other one,
  // so that it leads, and read the partition through it.
  cluster.stop_broker(b - 1, SIGTERM);
  ASSERT_TRUE(cluster.wait_for(topic, cluster.bootstrap_without(b - 1),
                               [&](const PartitionView& p) { return p.leader == c; }))
      << cluster.report(topic);
  const TopicContents contents = read_topic(cluster.bootstrap(), topic, 1);
  ASSERT_TRUE(contents.error.empty()) << contents.error << cluster.report(topic);
  const CheckResult check = check_acked(producer.records(), contents);
  EXPECT_TRUE(check.ok()) << check.first_problem;
  EXPECT_EQ(check.acked, producer.acked());
  EXPECT_EQ(contents.records, producer.acked());
}

TEST(Reassign, AThrottledMoveWaitsCancelsAndFinishesOnceTheThrottleIsLifted) {
  const std::string topic = "throttled";
  Moving m = start_with_topic(topic);
  ASSERT_NE(m.cluster, nullptr);
  ClusterHarness& cluster = *m.cluster;
  const Ids original = m.replicas;
  const int32_t c = m.spare;
  ASSERT_GE(c, 1);
  // 2 MiB, which 64 KiB/s copies in about 32 seconds.
  constexpr int kRecords = 200;
  ASSERT_EQ(produce_bulk(cluster.bootstrap(), topic, kRecords, 10 << 10), kRecords);
  const int32_t leader = cluster.describe(topic).at(0).leader;
  ASSERT_GE(leader, 1);
  const Ids target{original[1], c};

  auto reassign = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"partition", "reassign", "--topic", topic, "--partition", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(cluster, 0, args);
  };
  ProcessExit run = reassign({"--replicas", joined(target), "--throttle", "64KiB"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("(65536 B/s)"), std::string::npos) << run.output;

  // In progress, with the new replica catching up under the throttle: the
  // leader's throttled bytes grow between two looks while the move stays
  // listed (the copy takes far longer than the looks).
  int64_t first = 0;
  for (int i = 0; i < 300 && (first = throttled_bytes(cluster, leader - 1)) <= 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(first, 0) << cluster.report(topic);
  std::vector<OngoingReassignment> ongoing = moves(cluster, 1);
  ASSERT_EQ(ongoing.size(), 1u);
  EXPECT_EQ(ongoing[0].topic, topic);
  EXPECT_EQ(ongoing[0].target, target);
  EXPECT_EQ(ongoing[0].adding, Ids{c});
  EXPECT_EQ(ongoing[0].removing, Ids{original[0]});
  EXPECT_EQ(ongoing[0].throttle_bytes_per_sec, 65536);
  EXPECT_EQ(ongoing[0].catching_up(), Ids{c});
  int64_t later = first;
  for (int i = 0; i < 300 && (later = throttled_bytes(cluster, leader - 1)) <= first; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GT(later, first);
  EXPECT_EQ(moves(cluster, 2).size(), 1u);
  const std::string page = scrape(metrics_port(cluster.broker(leader - 1)));
  EXPECT_EQ(metric(page, "spillway_partition_reassignments"), 1);
  EXPECT_EQ(metric(page, "spillway_replication_throttle_bytes_per_second"), 65536);
  const ProcessExit list = cli(cluster, 2, {"partition", "reassignments"});
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("copying the log to " + std::to_string(c)), std::string::npos)
      << list.output;

  // Cancelled: back to the replicas it started from, the added one gone.
  run = reassign({"--cancel", "--wait", "--poll-ms", "100"});
  ASSERT_EQ(run.exit_code, 0) << run.output << cluster.report(topic);
  EXPECT_NE(run.output.find("done: replicas " + joined(original)), std::string::npos) << run.output;
  EXPECT_TRUE(moves(cluster, 0).empty());
  EXPECT_TRUE(cluster.wait_for(topic, [&](const PartitionView& p) {
    return p.replicas == original;
  })) << cluster.report(topic);

  // Again, throttled; then asked again without a throttle, and it finishes.
  run = reassign({"--replicas", joined(target), "--throttle", "64KiB"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(moves(cluster, 0).size(), 1u);
  run = reassign({"--replicas", joined(target), "--throttle", "0", "--wait", "--poll-ms", "100"});
  ASSERT_EQ(run.exit_code, 0) << run.output << cluster.report(topic);
  EXPECT_NE(run.output.find("done: replicas " + joined(target)), std::string::npos) << run.output;
  EXPECT_TRUE(moves(cluster, 1).empty());
  EXPECT_TRUE(cluster.wait_for(topic, [&](const PartitionView& p) { return p.replicas == target; }))
      << cluster.report(topic);
  // Every broker drops the throttle once its snapshot shows the move done.
  for (int i = 0; i < cluster.size(); ++i) {
    std::string after;
    for (int attempt = 0; attempt < 500; ++attempt) {
      after = scrape(metrics_port(cluster.broker(i)));
      if (metric(after, "spillway_partition_reassignments") == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(metric(after, "spillway_partition_reassignments"), 0) << i;
    EXPECT_EQ(metric(after, "spillway_replication_throttle_bytes_per_second"), 0) << i;
  }
  const TopicContents contents = read_topic(cluster.bootstrap(), topic, 1);
  ASSERT_TRUE(contents.error.empty()) << contents.error;
  EXPECT_EQ(contents.records, kRecords);
}

TEST(Reassign, TheCliRefusesWhatCannotBeMovedWithAClearMessage) {
  const std::string topic = "refused";
  Moving m = start_with_topic(topic);
  ASSERT_NE(m.cluster, nullptr);
  ClusterHarness& cluster = *m.cluster;
  auto reassign = [&](std::vector<std::string> args) {
    std::vector<std::string> all{"partition", "reassign"};
    all.insert(all.end(), args.begin(), args.end());
    return cli(cluster, 0, all);
  };
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--topic", topic, "--partition", "0", "--replicas", "1,9"},
       "refused-0: broker 9 is not a live broker of the cluster (live: 1,2,3)"},
      {{"--topic", topic, "--partition", "0", "--replicas", "2,2"},
       "refused-0: broker 2 is named twice"},
      {{"--topic", "nosuch", "--partition", "0", "--replicas", "1,2"}, "no topic nosuch"},
      {{"--topic", topic, "--partition", "3", "--replicas", "1,2"},
       "no partition refused/3 (the topic has 1 partition)"},
      {{"--topic", topic, "--partition", "0", "--cancel"}, "refused/0 is not being moved"},
  };
  for (const Case& c : cases) {
    const ProcessExit run = reassign(c.args);
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find(c.says), std::string::npos) << run.output;
  }
  // Usage errors, before anything is asked.
  EXPECT_EQ(reassign({"--topic", topic, "--partition", "0"}).exit_code, 2);
  EXPECT_EQ(
      reassign({"--topic", topic, "--partition", "0", "--replicas", "1", "--cancel"}).exit_code, 2);
  EXPECT_EQ(
      reassign({"--topic", topic, "--partition", "0", "--replicas", "1", "--throttle", "fast"})
          .exit_code,
      2);
  EXPECT_EQ(cluster.describe(topic).at(0).replicas, m.replicas);
  EXPECT_TRUE(moves(cluster, 1).empty());

  // A broker on its own has nothing to move partitions between.
  Result<std::unique_ptr<BrokerProcess>> alone = BrokerProcess::start();
  ASSERT_TRUE(alone.ok()) << alone.status().to_string();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"partition", "reassign", "--topic", "t", "--partition", "0", "--replicas", "1"},
           {"partition", "reassignments"}}) {
    std::vector<std::string> with_broker = args;
    with_broker.push_back("--broker");
    with_broker.push_back((*alone)->address());
    Result<ProcessExit> run = run_process(cli_binary(), with_broker);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->exit_code, 1) << run->output;
    EXPECT_NE(run->output.find("not a cluster"), std::string::npos) << run->output;
  }
}

}  // namespace
}  // namespace spillway::testing
