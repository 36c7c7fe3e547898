// Issue 5 acceptance, with the real broker: 3 topics x 4 partitions, 100k
// keyed messages from 4 producer threads, all consumed back. Each key's
// messages sit in one partition, in send order, and that partition is
// Kafka's murmur2 partition for the key. The broker is restarted (SIGTERM,
// then started again on the same data directory) while the producers run:
// every ACKNOWLEDGED message must be read back (a send that failed in the
// restart window is sent again, so a message may appear more than once, but
// never out of order relative to the acknowledged ones), and the offsets
// committed before the restart are still there after it.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "spillway/admin.h"
#include "spillway/common/key_partitioner.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"

namespace spillway::testing {
namespace {

constexpr int kTopics = 3;
constexpr int kPartitions = 4;
constexpr int kThreads = 4;
constexpr int kMessages = 100'000;
constexpr int kPerThread = kMessages / kThreads;
constexpr int kKeysPerThread = 50;

std::string topic_name(int t) {
  return "e2e-" + std::to_string(t);
}

std::span<const std::byte> bytes(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// Message i of thread `th`: key "k<th>-<i % keys>", value "<th>:<i>"; it
// goes to topic i % kTopics.
struct Sent {
  std::atomic<int> outstanding{0};
  std::vector<uint8_t> acked;  // per message of this thread
  std::vector<uint8_t> failed;
  std::vector<uint8_t> resent;    // sent a second time after failing
  std::atomic<int> misplaced{0};  // acknowledged in another partition than murmur2's
  std::atomic<int> acked_count{0};
  int32_t expected_partition(int index, int th) const {
    const std::string key = "k" + std::to_string(th) + "-" + std::to_string(index % kKeysPerThread);
    return KeyPartitioner::partition(std::as_bytes(std::span<const char>(key.data(), key.size())),
                                     kPartitions);
  }
};

struct Delivery {
  Sent* sent;
  int index;
  int thread;
};

void on_delivery(void* context, const Status& st, const RecordMetadata& m) {
  auto* d = static_cast<Delivery*>(context);
  if (st.ok()) {
    d->sent->acked[static_cast<size_t>(d->index)] = 1;
    d->sent->acked_count.fetch_add(1);
    // Placement promised by the client: murmur2 of the key.
    if (m.partition != d->sent->expected_partition(d->index, d->thread)) {
      d->sent->misplaced.fetch_add(1);
    }
  } else {
    d->sent->failed[static_cast<size_t>(d->index)] = 1;
  }
  d->sent->outstanding.fetch_sub(1);
}

Result<std::unique_ptr<BrokerProcess>> start_on(const std::filesystem::path& dir, uint16_t port) {
  BrokerProcess::Options o;
  o.default_data_dir = false;
  o.default_listen = port == 0;
  o.args = {"--data-dir", dir.string()};
  if (port != 0) {
    o.args.push_back("--listen");
    o.args.push_back("127.0.0.1:" + std::to_string(port));
  }
  return BrokerProcess::start(o);
}

TEST(ClientEndToEnd, KeyedMessagesSurviveABrokerRestartInOrder) {
  TempDir data;
  auto broker = start_on(data.path(), 0);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  const uint16_t port = (*broker)->port();
  const std::string address = (*broker)->address();
  {
    auto admin = Admin::connect(address);
    ASSERT_TRUE(admin.ok());
    for (int t = 0; t < kTopics; ++t) {
      TopicOptions o;
      o.partitions = kPartitions;
      ASSERT_TRUE(admin->create_topic(topic_name(t), o).ok());
    }
  }

  // Four producer threads; each re-sends, in order, what failed.
  std::vector<Sent> sent(kThreads);
  std::atomic<int> progress{0};
  std::atomic<int> at_half{0};
  std::atomic<bool> broker_stopped{false};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    sent[static_cast<size_t>(th)].acked.assign(kPerThread, 0);
    sent[static_cast<size_t>(th)].failed.assign(kPerThread, 0);
    sent[static_cast<size_t>(th)].resent.assign(kPerThread, 0);
    threads.emplace_back([&, th] {
      Sent& s = sent[static_cast<size_t>(th)];
      std::vector<Delivery> contexts(kPerThread);
      ProducerOptions po;
      po.bootstrap = address;
      po.linger = std::chrono::milliseconds(5);
      po.retry_backoff = std::chrono::milliseconds(50);
      po.retries = 1'000;  // ride through the restart; the delivery timeout bounds it
      po.delivery_timeout = std::chrono::seconds(60);
      auto producer = Producer::create(po);
      ASSERT_TRUE(producer.ok());
      for (int i = 0; i < kPerThread; ++i) {
        const std::string key = "k" + std::to_string(th) + "-" + std::to_string(i % kKeysPerThread);
        const std::string value = std::to_string(th) + ":" + std::to_string(i);
        contexts[static_cast<size_t>(i)] = {&s, i, th};
        s.outstanding.fetch_add(1);
        (*producer)->send(topic_name(i % kTopics), bytes(key), bytes(value), {},
                          {&on_delivery, &contexts[static_cast<size_t>(i)]});
        progress.fetch_add(1);
        if (i == kPerThread / 2) {
          // Hold here until the broker is down: the rest is sent into the
          // restart window (queued, then delivered after reconnecting).
          at_half.fetch_add(1);
          while (!broker_stopped.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      }
      (void)(*producer)->flush();  // failures are re-sent below
      // Anything that failed (the restart window) is sent again, in order,
      // once the partitions it fenced are reset.
      for (int round = 0; round < 5; ++round) {
        for (const FencedPartition& f : (*producer)->fenced_partitions()) {
          ASSERT_TRUE((*producer)->reset_partition(f.topic, f.partition).ok());
        }
        bool any = false;
        for (int i = 0; i < kPerThread; ++i) {
          if (!s.failed[static_cast<size_t>(i)] || s.acked[static_cast<size_t>(i)]) continue;
          any = true;
          s.failed[static_cast<size_t>(i)] = 0;
          s.resent[static_cast<size_t>(i)] = 1;
          const std::string key =
              "k" + std::to_string(th) + "-" + std::to_string(i % kKeysPerThread);
          const std::string value = std::to_string(th) + ":" + std::to_string(i);
          s.outstanding.fetch_add(1);
          (*producer)->send(topic_name(i % kTopics), bytes(key), bytes(value), {},
                            {&on_delivery, &contexts[static_cast<size_t>(i)]});
        }
        (void)(*producer)->flush();
        if (!any) break;
      }
      (void)(*producer)->close();
    });
  }

  // Restart the broker midway: stop it once every thread is half done
  // (some of that half possibly still in flight), let the threads send on
  // while it is down, and start it again on the same data directory.
  while (at_half.load() < kThreads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // Commit offsets (the current high watermarks of two partitions) just
  // before the restart.
  std::vector<TopicPartitionOffset> committed;
  {
    ConsumerOptions co;
    co.bootstrap = address;
    co.group_id = "survivor";
    auto consumer = Consumer::create(co);
    ASSERT_TRUE(consumer.ok());
    for (int t : {0, 2}) {
      Result<TopicDescription> d = (*consumer)->describe(topic_name(t));
      ASSERT_TRUE(d.ok());
      committed.push_back(
          {topic_name(t), t + 1, d->partitions[static_cast<size_t>(t + 1)].high_watermark});
    }
    ASSERT_TRUE((*consumer)->commit(committed).ok());
  }
  Result<ProcessExit> stopped = (*broker)->stop(SIGTERM);
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(stopped->exit_code, 0) << stopped->output;
  broker_stopped = true;
  while (progress.load() < kMessages * 3 / 4) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  int acked_while_down = 0;
  for (const Sent& s : sent) acked_while_down += s.acked_count.load();
  // Nothing sent after the stop could have been acknowledged yet.
  EXPECT_LE(acked_while_down, kMessages / 2 + kThreads);
  std::printf("acknowledged when the broker came back: %d of %d\n", acked_while_down, kMessages);
  broker = start_on(data.path(), port);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();

  for (std::thread& t : threads) t.join();
  for (const Sent& s : sent) {
    EXPECT_EQ(s.misplaced.load(), 0);
    for (int i = 0; i < kPerThread; ++i) ASSERT_TRUE(s.acked[static_cast<size_t>(i)]) << i;
  }

  // Committed offsets survived the restart.
  ConsumerOptions co;
  co.bootstrap = address;
  co.group_id = "survivor";
  co.fetch_max_wait = std::chrono::milliseconds(100);
  auto consumer = Consumer::create(co);
  ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
  for (const TopicPartitionOffset& c : committed) {
    EXPECT_EQ(*(*consumer)->committed(c.topic, c.partition), c.offset) << c.topic;
  }
  EXPECT_EQ(*(*consumer)->committed(topic_name(1), 0), -1);

  // Read everything back (from the beginning: no group).
  co.group_id.clear();
  consumer = Consumer::create(co);
  ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
  int64_t total = 0;
  for (int t = 0; t < kTopics; ++t) {
    ASSERT_TRUE((*consumer)->assign(topic_name(t)).ok());
    Result<TopicDescription> d = (*consumer)->describe(topic_name(t));
    ASSERT_TRUE(d.ok());
    for (const PartitionDescription& p : d->partitions) total += p.high_watermark;
  }
  // Per (thread, key): the last index read, and where it was read.
  std::map<std::string, std::pair<std::string, int32_t>> placement;  // key -> topic, partition
  std::map<std::string, int> last_index;
  std::vector<std::vector<uint8_t>> read(kThreads, std::vector<uint8_t>(kPerThread, 0));
  int64_t got = 0;
  int empty_polls = 0;
  while (got < total && empty_polls < 50) {
    Result<ConsumerRecords> records = (*consumer)->poll(std::chrono::milliseconds(500));
    ASSERT_TRUE(records.ok()) << records.status().to_string();
    if (records->empty()) ++empty_polls;
    for (const ConsumerRecord& r : *records) {
      ++got;
      const std::string key(r.key_string());
      const std::string value(r.value_string());
      const size_t colon = value.find(':');
      const int th = std::stoi(value.substr(0, colon));
      const int index = std::stoi(value.substr(colon + 1));
      const bool seen_before = read[static_cast<size_t>(th)][static_cast<size_t>(index)] != 0;
      read[static_cast<size_t>(th)][static_cast<size_t>(index)] = 1;
      // The partition is Kafka's murmur2 partition for the key...
      EXPECT_EQ(r.partition, KeyPartitioner::partition(bytes(key), kPartitions)) << key;
      ASSERT_EQ(topic_name(index % kTopics), r.topic);
      // ...every message of a key in that one partition...
      auto [it, fresh] = placement.try_emplace(key, std::string(r.topic), r.partition);
      if (!fresh) {
        EXPECT_EQ(it->second.second, r.partition) << key;
      }
      // ...in send order: the first reading of each message comes after
      // the first reading of every earlier message of its key (a retried
      // batch may repeat right after itself; messages re-sent by the test
      // after a failure are exempt).
      const auto& s = sent[static_cast<size_t>(th)];
      if (s.resent[static_cast<size_t>(index)] || seen_before) continue;
      const std::string ordering_key = std::string(r.topic) + "/" + key;
      auto [li, first] = last_index.try_emplace(ordering_key, index);
      if (!first) {
        EXPECT_GT(index, li->second) << ordering_key << " out of send order";
        li->second = index;
      }
    }
  }
  EXPECT_EQ(got, total);
  if (got != total) {
    for (int t = 0; t < kTopics; ++t) {
      Result<TopicDescription> d = (*consumer)->describe(topic_name(t));
      for (const PartitionDescription& p : d->partitions) {
        std::printf("%s/%d: log start %lld, high watermark %lld, position %lld\n",
                    topic_name(t).c_str(), p.partition, static_cast<long long>(p.log_start_offset),
                    static_cast<long long>(p.high_watermark),
                    static_cast<long long>(*(*consumer)->position(topic_name(t), p.partition)));
      }
    }
  }
  EXPECT_GE(got, kMessages);
  std::printf("read back %lld records for %d acknowledged messages\n", static_cast<long long>(got),
              kMessages);
  for (int th = 0; th < kThreads; ++th) {
    for (int i = 0; i < kPerThread; ++i) {
      ASSERT_TRUE(read[static_cast<size_t>(th)][static_cast<size_t>(i)])
          << "acknowledged message " << th << ":" << i << " was not read back";
    }
  }
}

}  // namespace
}  // namespace spillway::testing
