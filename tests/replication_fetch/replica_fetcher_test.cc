// The follower's ReplicaFetcher against a leader broker in the same process:
// a leader Partition behind the real ReplicaFetch and LeaderEpochEnd
// handlers on a real Server (127.0.0.1:0), a follower Partition on another
// in-process broker's cores, the fetcher on the follower's core 0. No etcd:
// the roles are set on the partitions directly, as the ReplicaManager
// would. Also the handlers on their own (raw frames): the long poll, the
// replica check against the cluster snapshot, ClusterAction.
#include "replication/replica_fetcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "batch_testing.h"
#include "core/task_pool.h"
#include "fake_cluster.h"
#include "handlers/replication_handlers.h"
#include "in_process_broker.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/messages/replication.h"

namespace spillway::broker::testing {
namespace {

using replication::FollowEvent;
using replication::FollowPhase;
using replication::ReplicaFetcher;

constexpr BrokerId kLeader = 1;
constexpr BrokerId kFollower = 2;
const std::string kTopic = "t";

std::shared_ptr<void> replication_handlers(Dispatcher& dispatcher, BrokerContext& context) {
  return std::make_shared<ReplicationHandlers>(dispatcher, context);
}

// Runs fn() on the partition's owner core and waits for it.
template <typename F>
void on_owner(Partition& p, F fn) {
  std::promise<void> done;
  asio::post(p.owner(), [&] {
    fn();
    done.set_value();
  });
  done.get_future().get();
}

void lead(Partition& p, int32_t epoch) {
  on_owner(p, [&] {
    p.set_isr_writer(
        [](const cluster::PartitionKey&, const cluster::PartitionState&, std::vector<BrokerId>) {});
    replication::LeaderRole role;
    role.state.leader = kLeader;
    role.state.leader_epoch = epoch;
    role.state.isr = {kLeader, kFollower};
    role.replicas = {kLeader, kFollower};
    role.registered = role.replicas;
    role.min_insync_replicas = 1;
    p.become_leader(role);
  });
}

void lead_as(Partition& p, BrokerId self, int32_t epoch) {
  on_owner(p, [&] {
    p.set_isr_writer(
        [](const cluster::PartitionKey&, const cluster::PartitionState&, std::vector<BrokerId>) {});
    replication::LeaderRole role;
    role.state.leader = self;
    role.state.leader_epoch = epoch;
    role.state.isr = {self};
    role.replicas = {kLeader, kFollower};
    role.registered = role.replicas;
    p.become_leader(role);
  });
}

void follow(Partition& p, int32_t epoch) {
  on_owner(p, [&] { p.become_follower({.leader = kLeader, .leader_epoch = LeaderEpoch(epoch)}); });
}

// Appends one batch of `records` small records as a produce would (acks
// after the write) and returns the reply.
PartitionReply append(Partition& p, int records, const std::string& tag) {
  std::vector<spillway::testing::TestRecord> rs;
  for (int i = 0; i < records; ++i) {
    rs.push_back({.key = tag, .value = tag + "-" + std::to_string(i)});
  }
  const std::vector<std::byte> batch = spillway::testing::encode_batch(rs);
  std::span<std::byte> rented = BufferPool::global().rent(batch.size());
  std::copy(batch.begin(), batch.end(), rented.begin());
  std::promise<PartitionReply> answer;
  asio::io_context replies;
  Reply reply;
  reply.executor = tracked_executor(replies);
  reply.ctx = &answer;
  reply.fn = [](void* ctx, uint32_t, PartitionReply& r) {
    static_cast<std::promise<PartitionReply>*>(ctx)->set_value(std::move(r));
  };
  post_task(p.owner(), [&p, rented, size = batch.size(), reply = std::move(reply)]() mutable {
    p.append(rented.first(size), rented.data(), AckAfter::kWrite, std::move(reply));
  });
  replies.run();  // until the reply came (the tracked executor keeps it running)
  return answer.get_future().get();
}

// Every segment file of the broker's data directory, by relative path.
std::map<std::string, std::string> segment_files(const std::string& data_dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data_dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".log") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    files[std::filesystem::relative(entry.path(), data_dir).string()] = std::move(bytes);
  }
  return files;
}

// Collects the fetcher's events; waits for a condition on them or on the
// partitions (checked again after every event).
class Events {
 public:
  void on_event(const FollowEvent& e) {
    std::lock_guard lock(mu_);
    events_.push_back({e.phase, e.error, e.log_end.value()});
    changed_.notify_all();
  }
  template <typename Pred>
  bool wait_for(Pred pred) {
    std::unique_lock lock(mu_);
    // A generous bound that only stops a hung test; the condition is what
    // is asserted, not the time.
    return changed_.wait_for(lock, std::chrono::seconds(60), [&] { return pred(events_); });
  }
  struct Seen {
    FollowPhase phase;
    ErrorCode error;
    int64_t log_end;
  };
  static bool saw(const std::vector<Seen>& events, FollowPhase phase, ErrorCode error) {
    return std::any_of(events.begin(), events.end(),
                       [&](const Seen& s) { return s.phase == phase && s.error == error; });
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Seen> events_;
};

class ReplicaFetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    leader_ = std::make_unique<InProcessBroker>(
        InProcessBroker::Options{.broker_id = kLeader, .add_handlers = &replication_handlers});
    follower_ = std::make_unique<InProcessBroker>(
        InProcessBroker::Options{.broker_id = kFollower, .add_handlers = &replication_handlers});
    ASSERT_TRUE(leader_->started().ok()) << leader_->started().to_string();
    ASSERT_TRUE(follower_->started().ok()) << follower_->started().to_string();
    ASSERT_TRUE(leader_->create_topic(kTopic, 1).ok());
    ASSERT_TRUE(follower_->create_topic(kTopic, 1).ok());
    lp_ = leader_->partition(kTopic, 0);
    fp_ = follower_->partition(kTopic, 0);
    ASSERT_NE(lp_, nullptr);
    ASSERT_NE(fp_, nullptr);
    fetcher_ = std::make_unique<ReplicaFetcher>(
        follower_->cores().context(0), replication::FetcherOptions{.broker_id = kFollower,
                                                                   .broker_epoch = 1,
                                                                   .max_wait_ms = 200,
                                                                   .backoff_initial_ms = 10,
                                                                   .backoff_max_ms = 100});
    fetcher_->set_observer([this](const FollowEvent& e) { events_.on_event(e); });
  }

  void TearDown() override {
    if (fetcher_) {
      // Closed before the brokers stop: the leader then has no long poll
      // of the follower's to answer.
      std::promise<void> closed;
      fetcher_->stop([&closed] { closed.set_value(); });
      closed.get_future().get();
    }
    if (follower_) follower_->stop();
    if (leader_) leader_->stop();
    fetcher_.reset();
  }

  // Waits until the follower's log ends where the leader's does.
  bool caught_up() {
    return events_.wait_for(
        [&](const auto&) { return fp_->log_end_offset() == lp_->log_end_offset(); });
  }

  std::unique_ptr<InProcessBroker> leader_;
  std::unique_ptr<InProcessBroker> follower_;
  std::shared_ptr<Partition> lp_;
  std::shared_ptr<Partition> fp_;
  std::unique_ptr<ReplicaFetcher> fetcher_;
  Events events_;
};

TEST_F(ReplicaFetcherTest, ReplicatesAppendedBatches) {
  lead(*lp_, 1);
  follow(*fp_, 1);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(append(*lp_, 5, "a" + std::to_string(i)).status.ok());
  fetcher_->add_partition(fp_, kLeader, leader_->address(), LeaderEpoch(1));
  ASSERT_TRUE(caught_up());
  EXPECT_EQ(fp_->log_end_offset(), Offset(15));
  // Batches appended while it follows come through the long poll.
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(append(*lp_, 3, "b" + std::to_string(i)).status.ok());
  ASSERT_TRUE(caught_up());
  EXPECT_EQ(fp_->log_end_offset(), Offset(27));
  // The follower's log is the leader's, byte for byte (epochs included).
  EXPECT_EQ(segment_files(follower_->data_dir()), segment_files(leader_->data_dir()));
  // The leader saw the follower at its log end: the high watermark moved,
  // and the follower learns it (a fetch without records carries it too).
  EXPECT_TRUE(events_.wait_for([&](const auto&) {
    return lp_->high_watermark() == Offset(27) && fp_->high_watermark() == Offset(27);
  })) << lp_->high_watermark().value()
      << " " << fp_->high_watermark().value();
}

TEST_F(ReplicaFetcherTest, TruncatesADivergentTail) {
  // Epoch 1: both have A (two batches).
  lead(*lp_, 1);
  follow(*fp_, 1);
  ASSERT_TRUE(append(*lp_, 2, "a0").status.ok());
  ASSERT_TRUE(append(*lp_, 2, "a1").status.ok());
  fetcher_->add_partition(fp_, kLeader, leader_->address(), LeaderEpoch(1));
  ASSERT_TRUE(caught_up());
  fetcher_->remove_partition(kTopic, PartitionId(0));
  // Epoch 2: the follower led for a moment and wrote X, which the other
  // broker never saw.
  lead_as(*fp_, kFollower, 2);
  ASSERT_TRUE(append(*fp_, 3, "x").status.ok());
  ASSERT_EQ(fp_->log_end_offset(), Offset(7));
  // Epoch 3: the first broker leads again and writes B.
  lead(*lp_, 3);
  ASSERT_TRUE(append(*lp_, 1, "b").status.ok());
  ASSERT_EQ(lp_->log_end_offset(), Offset(5));
  // Following epoch 3: X goes (the leader's epoch 1 ends at 4, KIP-279's
  // second round), then B comes.
  follow(*fp_, 3);
  fetcher_->add_partition(fp_, kLeader, leader_->address(), LeaderEpoch(3));
  ASSERT_TRUE(caught_up());
  EXPECT_EQ(fp_->log_end_offset(), Offset(5));
  EXPECT_TRUE(events_.wait_for([](const auto& events) {
    return Events::saw(events, FollowPhase::kTruncate, ErrorCode::kOk);
  }));
  EXPECT_EQ(segment_files(follower_->data_dir()), segment_files(leader_->data_dir()));
}

TEST_F(ReplicaFetcherTest, AnOlderEpochIsFencedAndANewAssignmentResumes) {
  lead(*lp_, 2);
  follow(*fp_, 1);
  ASSERT_TRUE(append(*lp_, 2, "a").status.ok());
  fetcher_->add_partition(fp_, kLeader, leader_->address(), LeaderEpoch(1));
  ASSERT_TRUE(events_.wait_for([](const auto& events) {
    return Events::saw(events, FollowPhase::kStopped, ErrorCode::kFencedLeaderEpoch);
  }));
  EXPECT_EQ(fp_->log_end_offset(), Offset(0));
  // The ReplicaManager's next assignment: epoch 2.
  follow(*fp_, 2);
  fetcher_->add_partition(fp_, kLeader, leader_->address(), LeaderEpoch(2));
  ASSERT_TRUE(caught_up());
  EXPECT_EQ(fp_->log_end_offset(), Offset(2));
}

TEST_F(ReplicaFetcherTest, ANewerEpochThanTheLeaderKnowsIsRetried) {
  lead(*lp_, 1);
  follow(*fp_, 2);
  ASSERT_TRUE(append(*lp_, 2, "a").status.ok());
  fetcher_->add_partition(fp_, kLeader, leader_->address(), LeaderEpoch(2));
  // The leader has not seen epoch 2 yet: retried, not stopped.
  ASSERT_TRUE(events_.wait_for([](const auto& events) {
    return std::count_if(events.begin(), events.end(), [](const Events::Seen& s) {
             return s.error == ErrorCode::kUnknownLeaderEpoch;
           }) >= 2;
  }));
  // Once it leads epoch 2, the follower catches up.
  lead(*lp_, 2);
  ASSERT_TRUE(caught_up());
  EXPECT_EQ(fp_->log_end_offset(), Offset(2));
}

// A follower's first fetch often reaches the new leader before the leader
// applied the snapshot that makes it leader. The fetcher used to stop
// there for good: in a three-broker run followers never fetched, the ISR
// shrank below min.insync.replicas and the partition took no acks=all
// write until a broker restarted.
TEST_F(ReplicaFetcherTest, ALeaderThatHasNotTakenOverYetIsRetried) {
  lead(*lp_, 1);
  ASSERT_TRUE(append(*lp_, 2, "a").status.ok());
  on_owner(*lp_, [&] { lp_->become_none(); });
  follow(*fp_, 1);
  fetcher_->add_partition(fp_, kLeader, leader_->address(), LeaderEpoch(1));
  ASSERT_TRUE(events_.wait_for([](const auto& events) {
    return std::count_if(events.begin(), events.end(), [](const Events::Seen& s) {
             return s.error == ErrorCode::kNotLeaderOrFollower;
           }) >= 2;
  }));
  lead(*lp_, 1);
  ASSERT_TRUE(caught_up());
  EXPECT_EQ(fp_->log_end_offset(), Offset(2));
}

TEST_F(ReplicaFetcherTest, ALeaderAtAnotherAddressGetsANewLink) {
  lead(*lp_, 1);
  follow(*fp_, 1);
  ASSERT_TRUE(append(*lp_, 2, "a").status.ok());
  // Nothing listens there (connections are refused: the link backs off
  // and retries) ...
  fetcher_->add_partition(fp_, kLeader, "127.0.0.1:1", LeaderEpoch(1));
  // ... until the assignment names the leader's real address.
  fetcher_->add_partition(fp_, kLeader, leader_->address(), LeaderEpoch(1));
  ASSERT_TRUE(caught_up());
  EXPECT_EQ(fp_->log_end_offset(), Offset(2));
}

// ---- the handlers on their own ----

std::optional<RawResponse> replica_fetch(uint16_t port, BrokerId replica, int64_t offset,
                                         int32_t epoch, int32_t max_wait_ms) {
  RawClient client(port);
  const std::array<messages::ReplicaFetchPartitionRequest, 1> parts = {
      messages::ReplicaFetchPartitionRequest{.partition = 0,
                                             .fetch_offset = offset,
                                             .current_leader_epoch = epoch,
                                             .max_bytes = 1 << 20}};
  const std::array<messages::ReplicaFetchTopicRequest, 1> topics = {
      messages::ReplicaFetchTopicRequest{.name = kTopic, .partitions = parts}};
  return client.call(frame::ApiKey::kReplicaFetch, [&](WriteBuffer& out) {
    return messages::encode_replica_fetch_request({.replica_id = replica,
                                                   .broker_epoch = 1,
                                                   .max_wait_ms = max_wait_ms,
                                                   .min_bytes = 1,
                                                   .max_bytes = 8 << 20,
                                                   .topics = topics},
                                                  out);
  });
}

messages::ReplicaFetchPartitionResult only_result(const messages::ReplicaFetchResponse& r) {
  for (const auto& t : r.topics) {
    for (const auto& p : t.results) return p;
  }
  return {};
}

TEST_F(ReplicaFetcherTest, ALongPollIsWokenByAnAppend) {
  lead(*lp_, 1);
  ASSERT_TRUE(append(*lp_, 2, "a").status.ok());
  // At the log end with a long wait: the answer brings the next batch,
  // which only an append's wake-up can give it before the wait ends.
  std::promise<std::optional<RawResponse>> answer;
  std::thread asker(
      [&] { answer.set_value(replica_fetch(leader_->port(), kFollower, 2, 1, 60'000)); });
  ASSERT_TRUE(append(*lp_, 3, "b").status.ok());
  std::optional<RawResponse> r = answer.get_future().get();
  asker.join();
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->code, ErrorCode::kOk);
  auto decoded = messages::decode_replica_fetch_response(r->body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  const auto p = only_result(*decoded);
  EXPECT_EQ(p.error_code, ErrorCode::kOk) << p.error_message.text;
  EXPECT_EQ(p.leader_epoch, 1);
  EXPECT_FALSE(p.records.bytes.empty());
}

TEST(ReplicationHandlers, ANonReplicaAndAMissingClusterActionAreRefused) {
  FakeCluster cluster;
  auto snapshot = std::make_shared<cluster::ClusterSnapshot>();
  snapshot->topics[kTopic] = {.name = kTopic, .replicas = {{kLeader, kFollower}}};
  cluster.set_snapshot(snapshot);
  InProcessBroker broker(
      {.broker_id = kLeader, .add_handlers = &replication_handlers, .cluster = &cluster});
  ASSERT_TRUE(broker.started().ok());
  ASSERT_TRUE(broker.create_topic(kTopic, 1).ok());
  lead(*broker.partition(kTopic, 0), 1);
  auto r = replica_fetch(broker.port(), /*replica=*/7, 0, 1, 0);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->code, ErrorCode::kOk);
  auto decoded = messages::decode_replica_fetch_response(r->body);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(only_result(*decoded).error_code, ErrorCode::kNotLeaderOrFollower);

  ClusterOnlyAuthorizer describe_only({security::AclOperation::kDescribe});
  InProcessBroker denied({.broker_id = kLeader,
                          .add_handlers = &replication_handlers,
                          .cluster = &cluster,
                          .authorizer = &describe_only});
  ASSERT_TRUE(denied.started().ok());
  auto refused = replica_fetch(denied.port(), kFollower, 0, 1, 0);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->code, ErrorCode::kClusterAuthorizationFailed);
  RawClient client(denied.port());
  auto epoch_end = client.call(frame::ApiKey::kLeaderEpochEnd, [](WriteBuffer& out) {
    return messages::encode_leader_epoch_end_request({.replica_id = kFollower}, out);
  });
  ASSERT_TRUE(epoch_end.has_value());
  EXPECT_EQ(epoch_end->code, ErrorCode::kClusterAuthorizationFailed);
}

TEST(ReplicationHandlers, LeaderEpochEndAnswersTheEpochsEnd) {
  InProcessBroker broker({.broker_id = kLeader, .add_handlers = &replication_handlers});
  ASSERT_TRUE(broker.started().ok());
  ASSERT_TRUE(broker.create_topic(kTopic, 1).ok());
  std::shared_ptr<Partition> p = broker.partition(kTopic, 0);
  lead(*p, 1);
  ASSERT_TRUE(append(*p, 4, "a").status.ok());
  lead(*p, 3);
  ASSERT_TRUE(append(*p, 2, "b").status.ok());
  RawClient client(broker.port());
  auto ask = [&](int32_t epoch) {
    const std::array<messages::LeaderEpochEndPartitionRequest, 2> parts = {
        messages::LeaderEpochEndPartitionRequest{
            .partition = 0, .current_leader_epoch = 3, .leader_epoch = epoch},
        messages::LeaderEpochEndPartitionRequest{
            .partition = 9, .current_leader_epoch = 3, .leader_epoch = epoch}};
    const std::array<messages::LeaderEpochEndTopicRequest, 1> topics = {
        messages::LeaderEpochEndTopicRequest{.name = kTopic, .partitions = parts}};
    return client.call(frame::ApiKey::kLeaderEpochEnd, [&](WriteBuffer& out) {
      return messages::encode_leader_epoch_end_request({.replica_id = kFollower, .topics = topics},
                                                       out);
    });
  };
  for (auto [asked, epoch, end] : {std::tuple{1, 1, 4}, std::tuple{2, 1, 4}, std::tuple{3, 3, 6}}) {
    auto r = ask(asked);
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ(r->code, ErrorCode::kOk);
    auto decoded = messages::decode_leader_epoch_end_response(r->body);
    ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
    std::vector<messages::LeaderEpochEndPartitionResult> results;
    for (const auto& t : decoded->topics) {
      for (const auto& x : t.results) results.push_back(x);
    }
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].error_code, ErrorCode::kOk) << results[0].error_message.text;
    EXPECT_EQ(results[0].leader_epoch, epoch) << "asked " << asked;
    EXPECT_EQ(results[0].end_offset, end) << "asked " << asked;
    EXPECT_EQ(results[1].error_code, ErrorCode::kUnknownPartition);
  }
}

}  // namespace
}  // namespace spillway::broker::testing
